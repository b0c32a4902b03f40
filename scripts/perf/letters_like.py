"""A generated 26-class file shaped like UCI letter recognition (20,000 x 16), for timing
`rfbench compare` on many classes: each class two Gaussian blobs, the columns bent by a sine of
their neighbour, 2 % of labels redrawn. Generated data, not the UCI set.

Usage: python3 scripts/perf/letters_like.py [N [SEED]] > letters.csv
"""
import random, math, sys
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
n, d, k = int(sys.argv[1]) if len(sys.argv) > 1 else 20000, 16, 26
centres = [[[random.gauss(0, 1.6) for _ in range(d)] for _ in range(2)] for _ in range(k)]
print(",".join([f"f{j}" for j in range(d)] + ["letter"]))
for i in range(n):
    c = random.randrange(k)
    m = centres[c][random.randrange(2)]
    x = [m[j] + random.gauss(0, 1.0) for j in range(d)]
    x = [v + 0.5 * math.sin(2 * x[(j + 1) % d]) for j, v in enumerate(x)]
    if random.random() < 0.02:
        c = random.randrange(k)
    print(",".join(f"{v:.4f}" for v in x) + "," + chr(65 + c))
