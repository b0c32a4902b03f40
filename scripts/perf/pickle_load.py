"""Load time of our pickles against scikit-learn's (RFF phase form vs RBFSampler, Nystroem vs Nystroem),
the fastest of 9 loads, three alternating rounds; what crates/python/tests/test_pickle.py measures,
printed. Run with a Python that has the rfbench wheel and scikit-learn installed."""
import pickle, time, numpy as np
from sklearn.kernel_approximation import Nystroem as SkN, RBFSampler
from rfbench import RandomFourierFeatures, Nystroem
def fastest(blob, rounds=9):
    t=[]
    for _ in range(rounds):
        s=time.perf_counter(); pickle.loads(blob); t.append(time.perf_counter()-s)
    return min(t)
X=np.random.RandomState(0).rand(2000,300)
for name, ours, theirs in [("rff", RandomFourierFeatures(4000, form="phase", random_state=0), RBFSampler(n_components=4000, random_state=0)),
                           ("nystroem", Nystroem(n_components=1000, random_state=0), SkN(n_components=1000, random_state=0))]:
    a, b = pickle.dumps(ours.fit(X)), pickle.dumps(theirs.fit(X))
    ta, tb = [], []
    for _ in range(3):
        ta.append(fastest(a)); tb.append(fastest(b))
    print(f"{name}: ours {min(ta)*1e3:.2f} ms, scikit-learn {min(tb)*1e3:.2f} ms, ratio {min(ta)/min(tb):.2f}x, bytes {len(a)} vs {len(b)}")
