//! The README's library example: Gaussian random Fourier features, then ridge regression on them.
//! Kept here so that it compiles; the README shows it verbatim.
//!
//! `cargo run --release -p rfbench-learners --example readme`
use ndarray::{Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_learners::{metrics::rmse, RidgeParams};
use rfbench_maps::{FeatureMap, RandomFourierParams, ShiftInvariantKernel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 2,000 rows in [-1, 1]^5, target sin(3 x0) + x1 x2; the first 1,500 train, the rest test.
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let x = Array2::<f64>::from_shape_fn((2000, 5), |_| rng.random_range(-1.0..1.0));
    let y = x
        .map_axis(Axis(1), |r| (3.0 * r[0]).sin() + r[1] * r[2])
        .insert_axis(Axis(1));

    let kernel = ShiftInvariantKernel::gaussian(1.0)?; // exp(-|x - y|^2 / (2 sigma^2)), sigma = 1
    let map = RandomFourierParams::new(kernel, 500).seed(1).fit(5)?; // D = 500 features of d = 5
    let z = map.transform(x.view())?; // 2000 x 500
    let (z_train, z_test) = z.view().split_at(Axis(0), 1500);
    let (y_train, y_test) = y.view().split_at(Axis(0), 1500);
    let model = RidgeParams::new().lambda(1e-3).fit(z_train, y_train)?;
    let predicted = model.predict(z_test)?;
    let error = rmse(&y_test.column(0).to_vec(), &predicted.column(0).to_vec())?;
    println!("test RMSE {error:.4}");
    Ok(())
}
