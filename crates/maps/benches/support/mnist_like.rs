//! The "MNIST-like" rows shared by the shift-invariant bench and the `transform_timer` example
//! (included by `#[path]`), so that both time the very same matrix.

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub const MNIST_DIM: usize = 780;
const MNIST_DENSITY: f64 = 0.19;
const MNIST_SEED: u64 = 780;

/// `n x 780` dense rows, ~19% non-zero, values in (0, 1], unit norm.
pub fn mnist_like(n: usize) -> Array2<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(MNIST_SEED);
    let mut x = Array2::zeros((n, MNIST_DIM));
    for mut row in x.rows_mut() {
        for v in row.iter_mut() {
            if rng.random::<f64>() < MNIST_DENSITY {
                *v = 1.0 - rng.random::<f64>();
            }
        }
        let norm = row.dot(&row).sqrt();
        if norm > 0.0 {
            row.mapv_inplace(|v| v / norm);
        }
    }
    x
}
