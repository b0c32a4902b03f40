"""scikit-learn's SVC (RBF, standardised columns), C and gamma by GridSearchCV (3-fold) on the
training rows of `rfbench compare`'s split (OUT/splits.json, repetition R), scored on its test
rows: the check of compare's exact reference on the same rows (issue 67).

Usage: python compare_svc_same_rows.py DATA.csv OUT/splits.json R   (the label the last column)
"""
import json, sys, time
import numpy as np, pandas as pd
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
data, splits, rep = sys.argv[1], sys.argv[2], int(sys.argv[3])
df = pd.read_csv(data)
x, y = df.iloc[:, :-1].to_numpy(float), df.iloc[:, -1].to_numpy()
s = json.load(open(splits))
test = np.array(s["splits"][rep]["test_rows"])
mask = np.zeros(len(y), bool); mask[test] = True
grid = {"svc__gamma": [2.0**k for k in (-7, -5, -3, -1, 1)], "svc__C": [2.0**k for k in (1, 3, 5, 7, 9)]}
t = time.time()
search = GridSearchCV(make_pipeline(StandardScaler(), SVC()), grid, cv=3, n_jobs=1)
search.fit(x[~mask], y[~mask])
acc = 100 * np.mean(search.predict(x[mask]) == y[mask])
print(f"rep {rep}: SVC {acc:.2f} % on {mask.sum()} test rows; best {search.best_params_}; {time.time()-t:.0f} s")
