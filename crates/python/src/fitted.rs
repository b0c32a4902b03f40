//! A fitted map as a Python object: applied to dense float64 or float32 arrays and to CSR rows,
//! pickled through the library's serde form (its random draws, not its seed).
//!
//! **Why a binary pickle.** The serde form written as JSON made pickles 20-35 % larger than
//! scikit-learn's and up to 40x slower to load (every float parsed from text). Pickles are now
//! the same serde form in postcard's encoding (lengths as varints), with each float array out of
//! line as its own `bytes` object (`rfbench_maps::blocks`), read by [`load_blocks`] through the
//! same checked deserialisers. The unpickler's copy of each array is then the map's memory, as
//! it is NumPy's: a copy into the map and a separate pass to check it had made loads 3x
//! scikit-learn's. The older loaders stay, so earlier pickles keep loading: [`load_binary`]
//! (arrays in line, 2026-11-27) and the JSON ones (binary ones written before 2026-11-27, float
//! by float, do not).

use ndarray::{Array2, ArrayView2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use rfbench_maps::{
    CsrMatrix, DynFeatureMap, Fastfood, MapError, Nystroem, OrthogonalRandomFeatures, Prff,
    RandomBinning, RandomFourierFeatures, RandomMaclaurin, RandomMaclaurinH01, Rows,
    StructuredOrthogonalFeatures, TensorSketch,
};

use crate::attributes::Attributes;
use crate::error::value_error;
use crate::rows::Input;

/// What the Python object needs of a map beyond [`DynFeatureMap`].
pub trait Fitted: DynFeatureMap + Attributes {
    /// The map's serde form (JSON, floats round-tripped exactly).
    fn to_json(&self) -> serde_json::Result<String>;
    /// The same serde form in postcard's binary encoding, the float arrays in line.
    fn to_binary(&self) -> postcard::Result<Vec<u8>>;
    /// The same with the float arrays out of line (what pickles carry): the skeleton and the
    /// arrays' buffers.
    fn to_blocks(&self) -> postcard::Result<(Vec<u8>, Vec<Vec<u8>>)>;
    /// The name of this module's function that reads the JSON back ([`FittedMap::__reduce__`]).
    fn loader(&self) -> &'static str;
    /// Whether [`Fitted::transform_f32`] is the map's own single-precision path.
    fn has_f32(&self) -> bool {
        false
    }
    /// Float32 rows to float32 features: the map's own single-precision path where it has one,
    /// else the double-precision features rounded, a block at a time.
    fn transform_f32(&self, x: ArrayView2<'_, f32>) -> Result<Array2<f32>, MapError> {
        self.transform_f32_rounded(x)
    }
    /// Whether [`Fitted::transform_sparse`] gives the features.
    fn has_sparse(&self) -> bool {
        false
    }
    /// The features as a sparse matrix, for a map whose features are mostly zeros (random
    /// binning: `P` non-zeros in `P * width` columns).
    fn transform_sparse(&self, _rows: Rows<'_>) -> Option<Result<CsrMatrix, MapError>> {
        None
    }
}

/// `Fitted` for a map type, and its loader `#[pyfunction]`; `f32` for the maps with a
/// single-precision path.
macro_rules! fitted {
    (@common $map:ty, $loader:ident) => {
        fn to_json(&self) -> serde_json::Result<String> {
            serde_json::to_string(self)
        }
        fn to_binary(&self) -> postcard::Result<Vec<u8>> {
            postcard::to_allocvec(self)
        }
        fn to_blocks(&self) -> postcard::Result<(Vec<u8>, Vec<Vec<u8>>)> {
            let (skeleton, blocks) = rfbench_maps::blocks::split(|| postcard::to_allocvec(self));
            Ok((skeleton?, blocks))
        }
        fn loader(&self) -> &'static str {
            stringify!($loader)
        }
    };
    (@loader $map:ty, $loader:ident) => {
        /// Reads a pickled map back (checked by the library's deserialiser).
        #[pyfunction]
        fn $loader(json: &str) -> PyResult<FittedMap> {
            let map: $map = serde_json::from_str(json).map_err(value_error)?;
            Ok(FittedMap::new(map))
        }
    };
    ($map:ty, $loader:ident) => {
        impl Fitted for $map {
            fitted!(@common $map, $loader);
        }
        fitted!(@loader $map, $loader);
    };
    ($map:ty, $loader:ident, f32) => {
        impl Fitted for $map {
            fitted!(@common $map, $loader);
            fn has_f32(&self) -> bool {
                true
            }
            fn transform_f32(&self, x: ArrayView2<'_, f32>) -> Result<Array2<f32>, MapError> {
                <$map>::transform_f32(self, x)
            }
        }
        fitted!(@loader $map, $loader);
    };
    ($map:ty, $loader:ident, sparse) => {
        impl Fitted for $map {
            fitted!(@common $map, $loader);
            fn has_sparse(&self) -> bool {
                true
            }
            fn transform_sparse(&self, rows: Rows<'_>) -> Option<Result<CsrMatrix, MapError>> {
                Some(<$map>::transform_sparse(self, rows))
            }
        }
        fitted!(@loader $map, $loader);
    };
}

fitted!(TensorSketch, load_tensor_sketch);
fitted!(RandomMaclaurin, load_random_maclaurin);
fitted!(RandomMaclaurinH01, load_random_maclaurin_h01);
fitted!(RandomFourierFeatures, load_random_fourier, f32);
fitted!(OrthogonalRandomFeatures, load_orthogonal, f32);
fitted!(StructuredOrthogonalFeatures, load_structured_orthogonal);
fitted!(Fastfood, load_fastfood);
fitted!(RandomBinning, load_random_binning, sparse);
fitted!(Nystroem, load_nystroem);
fitted!(Prff, load_prff);

/// One map of type `M` from its binary form, which must be read to the last byte.
fn from_binary<M: Fitted + serde::de::DeserializeOwned + 'static>(
    data: &[u8],
) -> PyResult<FittedMap> {
    // postcard keeps no message of a deserialiser's own errors (a failed check, a missing
    // array): say what could not be read.
    let (map, rest) = postcard::take_from_bytes::<M>(data).map_err(|e| {
        let name = std::any::type_name::<M>()
            .rsplit("::")
            .next()
            .unwrap_or("map");
        value_error(format!(
            "cannot read a {name} from this pickle ({e}): damaged, or written by another version"
        ))
    })?;
    if !rest.is_empty() {
        return Err(value_error(format!(
            "{} bytes left over after the map",
            rest.len()
        )));
    }
    Ok(FittedMap::new(map))
}

/// Reads one map type's binary form.
type BinaryReader = fn(&[u8]) -> PyResult<FittedMap>;

/// The reader of a map type's binary form; `kind` is the name of its JSON loader
/// ([`Fitted::loader`]).
fn binary_reader(kind: &str) -> PyResult<BinaryReader> {
    Ok(match kind {
        "load_tensor_sketch" => from_binary::<TensorSketch>,
        "load_random_maclaurin" => from_binary::<RandomMaclaurin>,
        "load_random_maclaurin_h01" => from_binary::<RandomMaclaurinH01>,
        "load_random_fourier" => from_binary::<RandomFourierFeatures>,
        "load_orthogonal" => from_binary::<OrthogonalRandomFeatures>,
        "load_structured_orthogonal" => from_binary::<StructuredOrthogonalFeatures>,
        "load_fastfood" => from_binary::<Fastfood>,
        "load_random_binning" => from_binary::<RandomBinning>,
        "load_nystroem" => from_binary::<Nystroem>,
        "load_prff" => from_binary::<Prff>,
        _ => return Err(value_error(format!("no map type {kind:?}"))),
    })
}

/// Reads a map pickled in the binary form with its arrays in line (pickles of 2026-11-27).
#[pyfunction]
fn load_binary(kind: &str, data: &[u8]) -> PyResult<FittedMap> {
    binary_reader(kind)?(data)
}

/// The `bytes` objects a pickle's arrays were read into, kept alive by the maps that read their
/// floats in place.
struct PickledBlocks(Vec<Py<PyBytes>>);

// SAFETY: a `bytes` object is immutable and its contents never move; each one is kept alive by
// the `Py` reference held here.
unsafe impl rfbench_maps::blocks::BlockOwner for PickledBlocks {
    fn blocks(&self) -> Vec<&[u8]> {
        Python::attach(|py| {
            self.0
                .iter()
                .map(|b| {
                    let bytes = b.bind(py).as_bytes();
                    // SAFETY: as above, valid while `self` holds the reference, not only while
                    // this GIL token is.
                    unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) }
                })
                .collect()
        })
    }
}

/// Reads a pickled map: its skeleton and the `bytes` of its float arrays, which the map keeps
/// and reads in place when they are aligned ([`rfbench_maps::blocks`]).
#[pyfunction]
fn load_blocks(kind: &str, skeleton: &[u8], blocks: Vec<Py<PyBytes>>) -> PyResult<FittedMap> {
    let read = binary_reader(kind)?;
    let owner = std::sync::Arc::new(PickledBlocks(blocks));
    let (map, left) = rfbench_maps::blocks::join(owner, || read(skeleton));
    match (map?, left) {
        (map, 0) => Ok(map),
        (_, left) => Err(value_error(format!(
            "{left} array buffers left over after the map"
        ))),
    }
}

pub fn register_loaders(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for loader in [
        wrap_pyfunction!(load_blocks, m)?,
        wrap_pyfunction!(load_binary, m)?,
        wrap_pyfunction!(load_tensor_sketch, m)?,
        wrap_pyfunction!(load_random_maclaurin, m)?,
        wrap_pyfunction!(load_random_maclaurin_h01, m)?,
        wrap_pyfunction!(load_random_fourier, m)?,
        wrap_pyfunction!(load_orthogonal, m)?,
        wrap_pyfunction!(load_structured_orthogonal, m)?,
        wrap_pyfunction!(load_fastfood, m)?,
        wrap_pyfunction!(load_random_binning, m)?,
        wrap_pyfunction!(load_nystroem, m)?,
        wrap_pyfunction!(load_prff, m)?,
    ] {
        m.add_function(loader)?;
    }
    Ok(())
}

/// A fitted map `z: R^d -> R^D`: a pure function of its random draws, so the same rows give the
/// same bits whatever the thread count.
#[pyclass(module = "rfbench._rfbench", frozen)]
pub struct FittedMap(Box<dyn Fitted>);

impl FittedMap {
    pub fn new(map: impl Fitted + 'static) -> Self {
        Self(Box::new(map))
    }
}

#[pymethods]
impl FittedMap {
    /// `d`.
    #[getter]
    fn input_dim(&self) -> usize {
        self.0.input_dim()
    }

    /// `D`.
    #[getter]
    fn output_dim(&self) -> usize {
        self.0.output_dim()
    }

    /// Bytes of the map's random draws, landmarks and tables.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.0.memory_bytes()
    }

    /// scikit-learn's fitted attributes of this map by name (`random_weights_`, `indexHash_`,
    /// `components_`, ...; module `attributes`), empty for a map without a scikit-learn
    /// counterpart.
    fn sklearn_attributes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in self.0.sklearn_attributes(py) {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// Whether float32 rows are mapped in single precision (else in double, then rounded).
    #[getter]
    fn native_float32(&self) -> bool {
        self.0.has_f32()
    }

    /// The `n x D` features of dense float64 rows or CSR parts, GIL released, on `n_jobs`
    /// threads (0: the package's setting).
    #[pyo3(signature = (rows, n_jobs = 0))]
    fn transform<'py>(
        &self,
        py: Python<'py>,
        rows: Input<'py>,
        n_jobs: usize,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let map = &*self.0;
        let features = rows.with_rows(py, n_jobs, |rows| map.transform(rows))?;
        Ok(features.into_pyarray(py))
    }

    /// Whether the map gives sparse features (`transform_sparse`).
    #[getter]
    fn sparse_output(&self) -> bool {
        self.0.has_sparse()
    }

    /// Sparse features as CSR parts `(data, indices, indptr, (n, D))` for SciPy, GIL released;
    /// a `ValueError` for a map whose features are dense.
    #[allow(clippy::type_complexity)]
    #[pyo3(signature = (rows, n_jobs = 0))]
    fn transform_sparse<'py>(
        &self,
        py: Python<'py>,
        rows: Input<'py>,
        n_jobs: usize,
    ) -> PyResult<(
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<usize>>,
        (usize, usize),
    )> {
        let map = &*self.0;
        if !map.has_sparse() {
            return Err(value_error("this map's features are dense: use transform"));
        }
        let features = rows.with_rows(py, n_jobs, |rows| {
            map.transform_sparse(rows).expect("has_sparse")
        })?;
        let n_rows = features.n_rows();
        let (n_cols, indptr, indices, values) = features.into_parts();
        Ok((
            values.into_pyarray(py),
            indices.into_pyarray(py),
            indptr.into_pyarray(py),
            (n_rows, n_cols),
        ))
    }

    /// Float32 rows to float32 features, GIL released: the map's single-precision path where it
    /// has one (`native_float32`), else its double-precision features rounded, block by block.
    #[pyo3(signature = (x, n_jobs = 0))]
    fn transform_float32<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f32>,
        n_jobs: usize,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let (map, view) = (&*self.0, x.as_array());
        let features = py
            .detach(|| crate::threads::install(n_jobs, || map.transform_f32(view)))?
            .map_err(value_error)?;
        Ok(features.into_pyarray(py))
    }

    /// Pickling: [`load_blocks`], the map's type, its serde form in binary and its float
    /// arrays, each as its own `bytes`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let loader = py.import("rfbench._rfbench")?.getattr("load_blocks")?;
        let (skeleton, blocks) = self.0.to_blocks().map_err(value_error)?;
        let blocks = PyTuple::new(py, blocks.iter().map(|b| PyBytes::new(py, b)))?;
        (
            loader,
            (self.0.loader(), PyBytes::new(py, &skeleton), blocks),
        )
            .into_pyobject(py)
    }

    /// The map's serde form in binary with its arrays in line (what pickles carried on
    /// 2026-11-27; [`load_binary`] reads it).
    fn to_binary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let data = self.0.to_binary().map_err(value_error)?;
        Ok(PyBytes::new(py, &data))
    }

    /// The map's serde form as JSON (what pickles carried before the binary form).
    fn to_json(&self) -> PyResult<String> {
        self.0.to_json().map_err(value_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "FittedMap(d={}, D={}, {})",
            self.0.input_dim(),
            self.0.output_dim(),
            self.0.loader().trim_start_matches("load_")
        )
    }
}
