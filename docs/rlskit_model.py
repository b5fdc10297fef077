"""Predict with an rlskit model file (docs/model-format.md) in pure Python.

    python3 docs/rlskit_model.py MODEL.json DATA.svm   # one line of outputs per row

load() refuses what `rlskit predict` refuses rather than guess: another
format or version, a field the version does not have, a kernel it does not
know, arrays whose sizes disagree, numbers that are not finite. It reads
linear and kernel models (linear, gaussian and polynomial kernels, dense and
sparse points, both kinds of scaler, weight_index, and from version 3 a
kernel model's intercept and feature_columns — which columns of a NumPy
array the d features were: the rows given here are those d features; from
version 4 class_names, the names of a one-vs-all model's outputs, or a binary
model's two classes and its positive_class, the +1 one);
precomputed-kernel models and version 5, a model with a prediction interval
(fit --interval), are refused as not read here. The outputs printed
are the model's raw outputs; a one-vs-all model's class is the name of the
largest (class_names, or classes for numeric classes).
"""
import json, math

TOP = {"format", "version", "learner", "kernel", "lambda", "width", "outputs", "features", "scaler",
       "zero_based", "classes", "class_label", "type", "weights", "weight_index", "intercept", "points",
       "coefficients", "feature_columns", "class_names", "positive_class", "interval"}
KERNEL = {"name", "gamma", "bias", "coef0", "degree"}
SCALER = {"centered", "mean", "scale", "index"}
POINTS = {"kind", "rows", "dense", "indptr", "indices", "values", "unit"}


def _refuse_constant(name):  # NaN, Infinity: not JSON, and not finite
    raise ValueError("%s is not a finite number" % name)


def _num(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError("%s: %r is not a finite number" % (what, v))
    return float(v)


def _int(v, what):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError("%s: %r is not an integer" % (what, v))
    return v


def _fields(obj, allowed, what):
    if not isinstance(obj, dict):
        raise ValueError("%s is not an object" % what)
    unknown = set(obj) - allowed
    if unknown:
        raise ValueError("%s: unknown field(s) %s" % (what, ", ".join(sorted(unknown))))


def _rows(rows, n, t, what):
    if not isinstance(rows, list) or len(rows) != n:
        raise ValueError("%s: want %d rows" % (what, n))
    for i, r in enumerate(rows):
        if not isinstance(r, list) or len(r) != t:
            raise ValueError("%s: row %d has not %d values" % (what, i, t))
        for c, v in enumerate(r):
            _num(v, "%s[%d][%d]" % (what, i, c))


def _increasing(idx, lo, hi, what):
    if not isinstance(idx, list):
        raise ValueError("%s is not an array" % what)
    for k, j in enumerate(idx):
        _int(j, what)
        if j < lo or j >= hi or (k > 0 and j <= idx[k - 1]):
            raise ValueError("%s: entry %d (%d) is not increasing within [%d,%d)" % (what, k, j, lo, hi))


def check(m):
    """Raise ValueError unless m is a model rlskit predict reads (and this loader can)."""
    _fields(m, TOP, "model")
    if m.get("format") != "rlskit-model":
        raise ValueError("format %r, want 'rlskit-model'" % m.get("format"))
    version = m.get("version")
    if version == 5 or "interval" in m:
        raise ValueError("a model with a prediction interval (fit --interval, version 5): not read here (use rlskit predict --coverage)")
    if isinstance(version, bool) or version not in (1, 2, 3, 4):
        raise ValueError("version %r: this loader reads versions 1 to 4" % version)
    if version == 1 and ("zero_based" in m or "centered" in (m.get("scaler") or {})):
        raise ValueError("version 1 has no zero_based and no scaler centered")
    if "zero_based" in m and not isinstance(m["zero_based"], bool):
        raise ValueError("zero_based is not a boolean")
    outputs = m.get("outputs")
    if not isinstance(outputs, list) or not outputs or not all(isinstance(o, str) for o in outputs):
        raise ValueError("outputs: want a non-empty array of names")
    t = len(outputs)
    d = _int(m.get("width"), "width")
    if d < 0:
        raise ValueError("width %d" % d)
    if not _num(m.get("lambda"), "lambda") > 0:
        raise ValueError("lambda must be > 0")
    k = m.get("kernel")
    _fields(k, KERNEL, "kernel")
    for p in ("gamma", "bias", "coef0"):
        if p in k:
            _num(k[p], "kernel " + p)
    name = k.get("name")
    if name in ("gaussian", "polynomial") and not k.get("gamma", 0) > 0:
        raise ValueError("%s gamma must be > 0" % name)
    if name == "polynomial" and _int(k.get("degree", 0), "polynomial degree") < 1:
        raise ValueError("polynomial degree must be ≥ 1")
    if name == "precomputed":
        raise ValueError("a precomputed-kernel model: not read here (use rlskit predict)")
    if name not in ("linear", "gaussian", "polynomial"):
        raise ValueError("kernel %r: want linear, gaussian or polynomial" % name)
    if "features" in m and (not isinstance(m["features"], list) or len(m["features"]) != d):
        raise ValueError("features: want %d names" % d)
    if "feature_columns" in m:
        fc = m["feature_columns"]
        if version < 3:
            raise ValueError("feature_columns in a version %d model (from version 3)" % version)
        if "features" in m:
            raise ValueError("both features (names) and feature_columns (numbers)")
        _increasing(fc, 0, 2 ** 63, "feature_columns")
        if len(fc) != d:
            raise ValueError("feature_columns: want %d" % d)
    if "classes" in m:
        cl = m["classes"]
        if not isinstance(cl, list) or len(cl) != t:
            raise ValueError("classes: want %d" % t)
        for c in range(t):
            _num(cl[c], "classes")
            if c > 0 and not cl[c] > cl[c - 1]:
                raise ValueError("classes are not increasing")
    if "class_names" in m or "positive_class" in m:
        names, pos = m.get("class_names"), m.get("positive_class")
        if names is None:
            raise ValueError("positive_class without class_names")
        if version < 4:
            raise ValueError("class_names in a version %d model (from version 4)" % version)
        if "classes" in m:
            raise ValueError("both classes and class_names")
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise ValueError("class_names: want non-empty strings")
        if pos is not None:
            if t != 1 or len(names) != 2 or names[0] == names[1]:
                raise ValueError("a binary model has one output and two distinct class_names")
            if pos not in names:
                raise ValueError("positive_class %r is not one of the class_names" % pos)
        else:
            if len(names) != t:
                raise ValueError("class_names: want %d" % t)
            for c in range(1, t):
                if not names[c].encode() > names[c - 1].encode():
                    raise ValueError("class_names are not increasing")
    s = m.get("scaler")
    if s is not None:
        _fields(s, SCALER, "scaler")
        scale = s.get("scale")
        if not isinstance(scale, list):
            raise ValueError("scaler without scale")
        for v in scale:
            if not _num(v, "scaler scale") >= 2.2250738585072014e-308:
                raise ValueError("scaler scale %r is not a normal positive number" % v)
        if "centered" in s and s["centered"] is not ("mean" in s):
            raise ValueError("scaler: centered disagrees with its mean")
        if "index" in s:
            if "mean" in s:
                raise ValueError("scaler: a sparse scaler (index) has no mean")
            _increasing(s["index"], 0, d, "scaler index")
            if len(s["index"]) != len(scale):
                raise ValueError("scaler: %d indices for %d scales" % (len(s["index"]), len(scale)))
        elif len(scale) != d:
            raise ValueError("scaler: %d scales for %d features" % (len(scale), d))
        if "mean" in s:
            if not isinstance(s["mean"], list) or len(s["mean"]) != len(scale):
                raise ValueError("scaler: means and scales differ in number")
            for v in s["mean"]:
                _num(v, "scaler mean")
    typ = m.get("type")
    if typ == "linear":
        if name != "linear":
            raise ValueError("a linear model with a %s kernel" % name)
        if "points" in m or "coefficients" in m:
            raise ValueError("points or coefficients in a linear model")
        n = d
        if "weight_index" in m:
            _increasing(m["weight_index"], 0, d, "weight_index")
            n = len(m["weight_index"])
        _rows(m.get("weights"), n, t, "weights")
        b = m.get("intercept")
        if not isinstance(b, list) or len(b) != t:
            raise ValueError("intercept: want %d values" % t)
        for v in b:
            _num(v, "intercept")
    elif typ == "kernel":
        if "weights" in m or "weight_index" in m:
            raise ValueError("weights in a kernel model")
        if "intercept" in m:
            if version < 3:
                raise ValueError("intercept in a version %d kernel model (from version 3)" % version)
            b = m["intercept"]
            if not isinstance(b, list) or len(b) != t:
                raise ValueError("intercept: want %d values" % t)
            for v in b:
                _num(v, "intercept")
        p = m.get("points")
        _fields(p, POINTS, "points")
        n = _int(p.get("rows"), "points rows")
        if n <= 0:
            raise ValueError("points: %d rows" % n)
        _rows(m.get("coefficients"), n, t, "coefficients")
        if p.get("kind") == "dense":
            if d == 0:
                raise ValueError("dense points of no features")
            _rows(p.get("dense"), n, d, "points")
        elif p.get("kind") == "csr":
            ip, ix, vs = p.get("indptr"), p.get("indices"), p.get("values")
            if not (isinstance(ip, list) and isinstance(ix, list) and isinstance(vs, list)) or len(ip) != n + 1 or \
                    len(ix) != len(vs):
                raise ValueError("points: csr arrays of the wrong size")
            for k2, v in enumerate(ip):
                _int(v, "indptr")
                if (k2 == 0 and v != 0) or (k2 > 0 and v < ip[k2 - 1]) or v > len(ix):
                    raise ValueError("points: indptr is not non-decreasing from 0 to %d" % len(ix))
            if ip[-1] != len(ix):
                raise ValueError("points: indptr ends at %d, not %d" % (ip[-1], len(ix)))
            for i in range(n):
                _increasing(ix[ip[i]:ip[i + 1]], 0, d, "points indices of row %d" % i)
            for v in vs:
                _num(v, "points values")
        else:
            raise ValueError("points kind %r: want dense or csr" % p.get("kind"))
    else:
        raise ValueError("type %r: want linear or kernel" % typ)
    return m


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        m = json.loads(text, parse_constant=_refuse_constant)
        return check(m)
    except (ValueError, TypeError, AttributeError, KeyError) as e:
        raise ValueError("%s: not an rlskit model this loader reads: %s" % (path, e)) from None


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
    else:  # "csr"
        ip = p["indptr"]
        pts = [dict(zip(p["indices"][ip[i]:ip[i + 1]], p["values"][ip[i]:ip[i + 1]])) for i in range(p["rows"])]

    def kern(z):
        if k["name"] == "gaussian":
            return math.exp(-k["gamma"] * sum((x.get(j, 0.0) - z.get(j, 0.0)) ** 2 for j in set(x) | set(z)))
        dot = sum(v * z.get(j, 0.0) for j, v in x.items())
        if k["name"] == "polynomial":
            return (k["gamma"] * dot + k.get("coef0", 0.0)) ** k["degree"]
        return dot + k.get("bias", 0.0)  # linear (check refused every other kernel)

    ks = [kern(z) for z in pts]
    b = m.get("intercept", [0.0] * len(m["outputs"]))  # version 3: fit --intercept
    return [sum(kv * a[c] for kv, a in zip(ks, m["coefficients"])) + b[c] for c in range(len(m["outputs"]))]


if __name__ == "__main__":
    import sys

    try:
        model = load(sys.argv[1])
    except (OSError, ValueError) as e:
        sys.exit("rlskit_model: %s" % e)
    off = 0 if model.get("zero_based") else 1  # svmlight indices as the training data were read
    for line in open(sys.argv[2]):
        fields = line.split("#")[0].split()
        if fields:
            x = {int(t.split(":")[0]) - off: float(t.split(":")[1]) for t in fields[1:] if not t.startswith("qid:")}
            print("\t".join(repr(v) for v in predict(model, x)))
