"""The ABI takes --choose and --lambda-per-output: the model it returns is
the chosen one. With choose=1se the predictions and CV predictions are those
of a fit at the chosen λ alone; with lambda-per-output each output's are
those of a fit of that output alone at its own best λ (1e-12)."""

import numpy as np

import rlskit


def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    Y = np.c_[X @ [1, 2, 0, 0] + rng.normal(size=60), 0.1 * X @ [0, 0, 1, -1] + 3 * rng.normal(size=60)]
    return X, Y


def fit(X, y, **settings):
    base = {"kernel": "linear", "cv": "kfold:5", "seed": 3}
    base.update(settings)
    return rlskit.Estimator(learner="rls", settings=base).fit(X, y)


def test_choose_1se_model_is_the_chosen_lambda():
    X, Y = data()
    m = fit(X, Y[:, 0], choose="1se")
    cv = m.result_["summary"]["cv"]
    assert cv["choose"] == "1se"
    lam = cv["chosen"]["lambda"]
    assert lam > cv["best"]["lambda"]  # this data's rule moves to a larger λ
    one = fit(X, Y[:, 0], **{"lambda-grid": repr(float(lam))})
    np.testing.assert_allclose(m.predict(X), one.predict(X), rtol=0, atol=1e-12 * np.abs(one.predict(X)).max())
    np.testing.assert_allclose(m.cv_predictions_, one.cv_predictions_, rtol=0, atol=1e-12 * np.abs(one.cv_predictions_).max())


def test_lambda_per_output_each_output_its_own_fit():
    X, Y = data()
    m = fit(X, Y, **{"lambda-per-output": True})
    per = m.result_["summary"]["cv"]["best_per_output"]
    assert len(per) == 2 and per[0]["lambda"] != per[1]["lambda"]
    p = m.predict(X)
    for c in range(2):
        one = fit(X, Y[:, c])
        assert one.result_["summary"]["cv"]["best"]["lambda"] == per[c]["lambda"]
        q = one.predict(X)
        np.testing.assert_allclose(p[:, c], q, rtol=0, atol=1e-12 * np.abs(q).max())
