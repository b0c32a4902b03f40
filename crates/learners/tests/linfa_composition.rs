//! A random feature map composed with a linear learner through linfa's traits only: the map's
//! `Fit` / `Transformer` (rfbench-maps) feeding ridge regression's `Fit` / `Predict`. The pipeline
//! gives the same predictions as the native calls, and random features turn the linear learner
//! into a kernel machine: on a non-linear target it beats ridge on the raw inputs by far.

use linfa::traits::{Fit, Predict, Transformer};
use linfa::{Dataset, DatasetBase};
use ndarray::{Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rfbench_learners::RidgeParams;
use rfbench_maps::{FeatureMap, RandomFourierParams, ShiftInvariantKernel};

/// `n` points uniform in `[-2, 2]^3`, target `sin(2 x_0) cos(x_1)` plus noise of standard
/// deviation 0.05 (variance 0.0025: the best possible test MSE).
fn problem(n: usize, seed: u64) -> (Array2<f64>, Array2<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x = Array2::from_shape_simple_fn((n, 3), || rng.random::<f64>() * 4.0 - 2.0);
    let y = Array2::from_shape_fn((n, 1), |(i, _)| {
        let noise = (rng.random::<f64>() - 0.5) * 0.05 * 12f64.sqrt();
        (2.0 * x[[i, 0]]).sin() * x[[i, 1]].cos() + noise
    });
    (x, y)
}

fn mse(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    (a - b).mapv(|v| v * v).mean().unwrap()
}

#[test]
fn rff_then_ridge_through_linfa() {
    let (x_train, y_train) = problem(2000, 1);
    let (x_test, y_test) = problem(500, 2);
    let train = Dataset::new(x_train.clone(), y_train.clone());

    let map_params =
        RandomFourierParams::new(ShiftInvariantKernel::gaussian(1.0).unwrap(), 400).seed(3);
    let ridge = RidgeParams::new().lambda(1e-3).check().unwrap();

    // linfa only (called by trait name: the inherent and `FeatureMap` methods share the names):
    // fit the map on the dataset, map the dataset, fit ridge, map and predict.
    let map = Fit::fit(&map_params, &train).unwrap();
    let mapped: DatasetBase<Array2<f64>, Array2<f64>> = Transformer::transform(&map, train);
    let model = Fit::fit(&ridge, &mapped).unwrap();
    let z_test: Array2<f64> = Transformer::transform(&map, &x_test);
    let predicted: Array2<f64> = Predict::predict(&model, &z_test);

    // The native calls give the same bits.
    let native_map = map_params.fit(3).unwrap();
    let z_train = FeatureMap::transform(&native_map, &x_train).unwrap();
    let native_model = ridge.fit(z_train.view(), y_train.view()).unwrap();
    let native_z_test = FeatureMap::transform(&native_map, &x_test).unwrap();
    assert_eq!(
        predicted,
        native_model.predict(native_z_test.view()).unwrap()
    );

    // Ridge on the raw inputs cannot represent sin(2 x_0) cos(x_1); the target's variance is
    // 0.16 here, which the linear fit barely reduces (0.159);
    // RFF + ridge gets 0.0034 against the noise floor of 0.0025.
    let linear = ridge.fit(x_train.view(), y_train.view()).unwrap();
    let linear_mse = mse(&linear.predict(x_test.view()).unwrap(), &y_test);
    let rff_mse = mse(&predicted, &y_test);
    let variance = y_test.var_axis(Axis(0), 0.0)[0];
    println!("variance {variance:.4}, linear MSE {linear_mse:.4}, RFF + ridge MSE {rff_mse:.4}");
    assert!(rff_mse < 0.1 * linear_mse, "{rff_mse} vs {linear_mse}");
}
