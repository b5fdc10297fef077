"""Predict with an rlskit model file (docs/model-format.md) in pure Python.

    python3 docs/rlskit_model.py MODEL.json DATA.svm   # one line of outputs per row
"""
import json, math


def load(path):
    with open(path) as f:
        m = json.load(f)
    if m.get("format") != "rlskit-model" or m.get("version") not in (1, 2):
        raise ValueError("%s: not an rlskit model of version 1 or 2" % path)
    return m


def predict(m, x):
    """The outputs for one row x, a dict {0-based feature: value} (absent features are 0)."""
    s, x = m.get("scaler"), dict(x)
    if s:
        mean = s.get("mean") or [0.0] * len(s["scale"])
        for k, j in enumerate(s.get("index", range(len(s["scale"])))):
            x[j] = (x.get(j, 0.0) - mean[k]) / s["scale"][k]
    if m["type"] == "linear":
        rows = list(zip(m.get("weight_index", range(m["width"])), m["weights"]))
        return [sum((x.get(j, 0.0) * w[c] for j, w in rows), 0.0) + b for c, b in enumerate(m["intercept"])]
    k, p = m["kernel"], m["points"]
    if p["kind"] == "dense":
        pts = [dict(enumerate(r)) for r in p["dense"]]
    else:  # "csr" ("unit", a precomputed kernel's, is not read here)
        ip = p["indptr"]
        pts = [dict(zip(p["indices"][ip[i]:ip[i + 1]], p["values"][ip[i]:ip[i + 1]])) for i in range(p["rows"])]

    def kern(z):
        if k["name"] == "gaussian":
            return math.exp(-k["gamma"] * sum((x.get(j, 0.0) - z.get(j, 0.0)) ** 2 for j in set(x) | set(z)))
        dot = sum(v * z.get(j, 0.0) for j, v in x.items())
        if k["name"] == "polynomial":
            return (k["gamma"] * dot + k.get("coef0", 0.0)) ** k["degree"]
        return dot + k.get("bias", 0.0)  # linear

    ks = [kern(z) for z in pts]
    return [sum(kv * a[c] for kv, a in zip(ks, m["coefficients"])) for c in range(len(m["outputs"]))]


if __name__ == "__main__":
    import sys

    model = load(sys.argv[1])
    off = 0 if model.get("zero_based") else 1  # svmlight indices as the training data were read
    for line in open(sys.argv[2]):
        fields = line.split("#")[0].split()
        if fields:
            x = {int(t.split(":")[0]) - off: float(t.split(":")[1]) for t in fields[1:] if not t.startswith("qid:")}
            print("\t".join(repr(v) for v in predict(model, x)))
