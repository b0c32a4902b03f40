//! linfa's traits, so that maps compose with linfa's models: `Fit` on the parameters (checked or
//! not) over a linfa dataset of dense `f64` records, and `Transformer` on the fitted maps, for a
//! record matrix (`&ArrayBase<_, Ix2>` -> `Array2<f64>`) and for a whole dataset (records
//! replaced by their features, targets kept), as linfa-preprocessing does.
//!
//! Maps drawn from a seed (everything but [`Nystroem`] and [`Prff`]) only read the number of
//! columns of the records; [`Nystroem`] samples its landmarks from them and [`Prff`] learns from
//! them. The features equal the native API's for the same parameters, bit for bit.
//!
//! `Transformer` has no error channel, so a record matrix with the wrong number of columns or a
//! non-finite value panics there with the [`MapError`] text (linfa's own convention); the native
//! [`FeatureMap::transform`] returns these as typed errors instead.

use linfa::dataset::DatasetBase;
use linfa::traits::{Fit, Transformer};
use ndarray::{Array2, ArrayBase, Data, Ix2};

use crate::error::{MapError, Result};
use crate::feature_map::FeatureMap;
use crate::{
    Fastfood, FastfoodParams, FastfoodValidParams, Nystroem, NystroemParams, NystroemValidParams,
    OrthogonalRandomFeatures, OrthogonalRandomFeaturesParams, OrthogonalRandomFeaturesValidParams,
    Prff, PrffParams, PrffValidParams, RandomBinning, RandomBinningParams,
    RandomBinningValidParams, RandomFourierFeatures, RandomFourierParams, RandomFourierValidParams,
    RandomMaclaurin, RandomMaclaurinH01, RandomMaclaurinH01Params, RandomMaclaurinH01ValidParams,
    RandomMaclaurinParams, RandomMaclaurinValidParams, StructuredOrthogonalFeatures,
    StructuredOrthogonalParams, StructuredOrthogonalValidParams, TensorSketch, TensorSketchParams,
    TensorSketchValidParams,
};

/// `Fit` on unchecked and checked parameters; the records' method `$input` gives what the native
/// `fit` takes (`ncols`: the dimension, for maps drawn from a seed; `view`: the records).
macro_rules! fit {
    ($input:ident => $($params:ty, $valid:ty => $map:ty;)*) => {$(
        impl<D: Data<Elem = f64>, T> Fit<ArrayBase<D, Ix2>, T, MapError> for $valid {
            type Object = $map;

            fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<$map> {
                <$valid>::fit(self, dataset.records.$input())
            }
        }

        impl<D: Data<Elem = f64>, T> Fit<ArrayBase<D, Ix2>, T, MapError> for $params {
            type Object = $map;

            fn fit(&self, dataset: &DatasetBase<ArrayBase<D, Ix2>, T>) -> Result<$map> {
                self.clone().check()?.fit(dataset.records.$input())
            }
        }
    )*};
}

/// `Transformer` on records and on datasets for fitted maps.
macro_rules! transformer {
    ($($map:ty),*) => {$(
        impl<D: Data<Elem = f64>> Transformer<&ArrayBase<D, Ix2>, Array2<f64>> for $map {
            /// The features of every record; panics on invalid records (see the module doc).
            fn transform(&self, records: &ArrayBase<D, Ix2>) -> Array2<f64> {
                FeatureMap::transform(self, records.view())
                    .unwrap_or_else(|e| panic!("{}::transform: {e}", stringify!($map)))
            }
        }

        impl<D: Data<Elem = f64>, T> Transformer<DatasetBase<ArrayBase<D, Ix2>, T>, DatasetBase<Array2<f64>, T>>
            for $map
        {
            /// The dataset with its records replaced by their features (targets, weights and
            /// feature names of the records are dropped: the features have other names).
            fn transform(&self, dataset: DatasetBase<ArrayBase<D, Ix2>, T>) -> DatasetBase<Array2<f64>, T> {
                let features = Transformer::<&ArrayBase<D, Ix2>, Array2<f64>>::transform(self, &dataset.records);
                DatasetBase::new(features, dataset.targets)
            }
        }
    )*};
}

fit! {
    ncols =>
    TensorSketchParams, TensorSketchValidParams => TensorSketch;
    RandomMaclaurinParams, RandomMaclaurinValidParams => RandomMaclaurin;
    RandomMaclaurinH01Params, RandomMaclaurinH01ValidParams => RandomMaclaurinH01;
    RandomFourierParams, RandomFourierValidParams => RandomFourierFeatures;
    OrthogonalRandomFeaturesParams, OrthogonalRandomFeaturesValidParams => OrthogonalRandomFeatures;
    StructuredOrthogonalParams, StructuredOrthogonalValidParams => StructuredOrthogonalFeatures;
    FastfoodParams, FastfoodValidParams => Fastfood;
    RandomBinningParams, RandomBinningValidParams => RandomBinning;
}

fit! {
    view =>
    NystroemParams, NystroemValidParams => Nystroem;
    PrffParams, PrffValidParams => Prff;
}

transformer!(
    TensorSketch,
    RandomMaclaurin,
    RandomMaclaurinH01,
    RandomFourierFeatures,
    OrthogonalRandomFeatures,
    StructuredOrthogonalFeatures,
    Fastfood,
    RandomBinning,
    Nystroem,
    Prff
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::gaussian_data;
    use crate::{FastfoodTransform, Kernel, ShiftInvariantKernel};
    use linfa::Dataset;
    use ndarray::Array1;

    /// linfa's `Fit` (on unchecked and checked parameters) and `Transformer` give the native
    /// API's features bit for bit, and the dataset transformer keeps the targets.
    fn same_as_native<P, V, M>(params: P, valid: V, native: M)
    where
        P: Fit<Array2<f64>, Array1<f64>, MapError, Object = M>,
        V: Fit<Array2<f64>, Array1<f64>, MapError, Object = M>,
        M: FeatureMap + for<'a> Transformer<&'a Array2<f64>, Array2<f64>>,
        M: Transformer<
            DatasetBase<Array2<f64>, Array1<f64>>,
            DatasetBase<Array2<f64>, Array1<f64>>,
        >,
    {
        let x = gaussian_data(80, 6, 4);
        let y = Array1::from_iter((0..80).map(f64::from));
        let dataset = Dataset::new(x.clone(), y.clone());
        let expected = FeatureMap::transform(&native, &x).unwrap();
        let from_params = Fit::fit(&params, &dataset).unwrap();
        let from_valid = Fit::fit(&valid, &dataset).unwrap();
        assert_eq!(Transformer::transform(&from_params, &x), expected);
        assert_eq!(Transformer::transform(&from_valid, &x), expected);
        let mapped = Transformer::<_, DatasetBase<Array2<f64>, Array1<f64>>>::transform(
            &from_params,
            dataset,
        );
        assert_eq!(mapped.records, expected);
        assert_eq!(mapped.targets, y);
    }

    #[test]
    fn every_map_through_linfa_equals_native() {
        let gaussian = ShiftInvariantKernel::gaussian(2.0).unwrap();
        let x = gaussian_data(80, 6, 4);
        macro_rules! check {
            ($params:expr, $native:expr) => {{
                let params = $params;
                same_as_native(
                    params.clone(),
                    params.clone().check().unwrap(),
                    $native(params),
                );
            }};
        }
        check!(
            TensorSketchParams::new(2, 32).offset(1.0),
            |p: TensorSketchParams| p.fit(6).unwrap()
        );
        check!(
            RandomMaclaurinParams::new(3, 32),
            |p: RandomMaclaurinParams| p.fit(6).unwrap()
        );
        check!(
            RandomMaclaurinH01Params::new(3, 32),
            |p: RandomMaclaurinH01Params| p.fit(6).unwrap()
        );
        check!(
            RandomFourierParams::new(gaussian, 32),
            |p: RandomFourierParams| p.fit(6).unwrap()
        );
        check!(
            OrthogonalRandomFeaturesParams::new(gaussian, 32),
            |p: OrthogonalRandomFeaturesParams| p.fit(6).unwrap()
        );
        check!(
            StructuredOrthogonalParams::new(2.0, 32),
            |p: StructuredOrthogonalParams| p.fit(6).unwrap()
        );
        check!(
            FastfoodParams::new(gaussian, 32).transform(FastfoodTransform::Fourier),
            |p: FastfoodParams| p.fit(6).unwrap()
        );
        check!(
            RandomBinningParams::new(8, 2.0).width(16),
            |p: RandomBinningParams| p.fit(6).unwrap()
        );
        check!(
            NystroemParams::new(Kernel::Gaussian { sigma: 2.0 }, 20),
            |p: NystroemParams| p.fit(&x).unwrap()
        );
        check!(
            PrffParams::new(2.0, 16).max_iterations(5),
            |p: PrffParams| p.fit(&x).unwrap()
        );
    }

    /// Invalid parameters and data are the native errors through `Fit`.
    #[test]
    fn fit_errors_are_map_errors() {
        let x = gaussian_data(10, 3, 1);
        let dataset = Dataset::new(x, Array1::<f64>::zeros(10));
        let bad = RandomFourierParams::new(ShiftInvariantKernel::gaussian(1.0).unwrap(), 7);
        assert_eq!(
            Fit::fit(&bad, &dataset).unwrap_err(),
            MapError::OddComponents(7)
        );
        let too_many = NystroemParams::new(Kernel::Gaussian { sigma: 1.0 }, 11);
        assert_eq!(
            Fit::fit(&too_many, &dataset).unwrap_err(),
            MapError::TooManyLandmarks {
                landmarks: 11,
                n_samples: 10
            }
        );
    }

    #[test]
    #[should_panic(expected = "input has 4 columns but the map was fitted for d = 3")]
    fn transformer_panics_with_the_error_text() {
        let map = RandomFourierParams::new(ShiftInvariantKernel::gaussian(1.0).unwrap(), 8)
            .fit(3)
            .unwrap();
        let _: Array2<f64> = Transformer::transform(&map, &Array2::<f64>::zeros((2, 4)));
    }
}
