//! The linfa ecosystem traits: `Fit` on a linfa `Dataset` (dense records) and `Predict` through
//! `PredictInplace`, for [`LinearSvm`] (integer labels) and [`Ridge`] (`n x k` targets). `Fit` is
//! implemented here on the valid parameters; linfa implements it on the unchecked ones, which
//! are its [`ParamGuard`](crate::ParamGuard)s.
//!
//! `PredictInplace` has no error channel, so a record matrix with the wrong number of columns, a
//! non-finite value or a target buffer of the wrong length panics there (linfa's own convention);
//! the inherent `predict` methods return these as typed errors instead.

use linfa::dataset::DatasetBase;
use linfa::traits::{Fit, PredictInplace};
use ndarray::{Array1, Array2, ArrayBase, Data, Ix1, Ix2};

use crate::error::LearnerError;
use crate::linear_svm::{LinearSvm, LinearSvmValidParams};
use crate::ridge::{Ridge, RidgeValidParams};

impl From<linfa::Error> for LearnerError {
    fn from(e: linfa::Error) -> Self {
        LearnerError::Linfa(e.to_string())
    }
}

impl<D, T> Fit<ArrayBase<D, Ix2>, ArrayBase<T, Ix1>, LearnerError> for LinearSvmValidParams
where
    D: Data<Elem = f64>,
    T: Data<Elem = i64>,
{
    type Object = LinearSvm;

    fn fit(
        &self,
        dataset: &DatasetBase<ArrayBase<D, Ix2>, ArrayBase<T, Ix1>>,
    ) -> Result<LinearSvm, LearnerError> {
        let labels = dataset.targets.to_vec();
        LinearSvmValidParams::fit(self, dataset.records.view(), &labels)
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array1<i64>> for LinearSvm {
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<i64>) {
        assert_eq!(y.len(), x.nrows(), "one target per record");
        let predicted = self
            .predict(x.view())
            .unwrap_or_else(|e| panic!("LinearSvm::predict: {e}"));
        y.assign(&Array1::from(predicted));
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<i64> {
        Array1::zeros(x.nrows())
    }
}

impl<D, T> Fit<ArrayBase<D, Ix2>, ArrayBase<T, Ix2>, LearnerError> for RidgeValidParams
where
    D: Data<Elem = f64>,
    T: Data<Elem = f64>,
{
    type Object = Ridge;

    fn fit(
        &self,
        dataset: &DatasetBase<ArrayBase<D, Ix2>, ArrayBase<T, Ix2>>,
    ) -> Result<Ridge, LearnerError> {
        RidgeValidParams::fit(self, dataset.records.view(), dataset.targets.view())
    }
}

impl<D: Data<Elem = f64>> PredictInplace<ArrayBase<D, Ix2>, Array2<f64>> for Ridge {
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array2<f64>) {
        let predicted = self
            .predict(x.view())
            .unwrap_or_else(|e| panic!("Ridge::predict: {e}"));
        assert_eq!(y.dim(), predicted.dim(), "target buffer shape");
        y.assign(&predicted);
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array2<f64> {
        Array2::zeros((x.nrows(), self.weights().ncols()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LinearSvmParams, RidgeParams};
    use linfa::traits::Predict;
    use linfa::Dataset;
    use ndarray::array;

    #[test]
    fn linfa_fit_and_predict_match_the_inherent_methods() {
        let x = array![
            [0.0, 1.0],
            [1.0, 0.5],
            [2.0, -1.0],
            [3.0, 0.0],
            [-1.0, 2.0],
            [4.0, 1.0]
        ];
        let labels = array![1i64, 1, -1, -1, 1, -1];
        let dataset = Dataset::new(x.clone(), labels.clone());
        let params = LinearSvmParams::new().check().unwrap();
        let via_linfa = Fit::fit(&params, &dataset).unwrap();
        let direct = params.fit(&x, labels.as_slice().unwrap()).unwrap();
        assert_eq!(via_linfa, direct);
        // The unchecked parameters too, through linfa's ParamGuard.
        let unchecked = Fit::fit(&LinearSvmParams::new(), &dataset).unwrap();
        assert_eq!(unchecked, direct);
        let predicted: Array1<i64> = Predict::predict(&via_linfa, &x);
        assert_eq!(predicted.to_vec(), direct.predict(&x).unwrap());

        let y = array![[1.0], [2.0], [2.5], [4.0], [0.0], [6.0]];
        let ridge_params = RidgeParams::new().lambda(0.1).check().unwrap();
        let ridge = Fit::fit(&ridge_params, &Dataset::new(x.clone(), y.clone())).unwrap();
        assert_eq!(ridge, ridge_params.fit(x.view(), y.view()).unwrap());
        let unchecked = RidgeParams::new().lambda(0.1);
        assert_eq!(
            ridge,
            Fit::fit(&unchecked, &Dataset::new(x.clone(), y.clone())).unwrap()
        );
        let out: Array2<f64> = Predict::predict(&ridge, &x);
        assert_eq!(out, ridge.predict(x.view()).unwrap());
    }
}
