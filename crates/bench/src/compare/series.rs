//! Which series of the comparison a result row belongs to: its map, or the map's variant whose
//! parameter values the row has (RFF's phase form, `rff:phase`), from the registry's
//! [`rfbench_registry::Series`]. The pilot's timings, the tuning's penalties and the sweep's
//! lines are all keyed by it.

use crate::results::{CellValue, ResultRow};
use rfbench_registry::Series;

/// The series of a result row: its map's name, or the name of the map's variant whose
/// parameter values the row has (`rff:phase`); a map the registry does not know by its name.
pub fn series_name(row: &ResultRow) -> Option<String> {
    let Some(CellValue::Text(map)) = row.coordinates.get("map") else {
        return None;
    };
    let text = |param: &str| match row.coordinates.get(param) {
        Some(CellValue::Text(v)) => Some(v.as_str()),
        _ => None,
    };
    Some(Series::of(map, text).map_or(map.clone(), |s| s.name().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::CellOutcome;
    use std::collections::BTreeMap;

    fn row(coordinates: &[(&str, &str)]) -> ResultRow {
        let text = |(k, v): &(&str, &str)| (k.to_string(), CellValue::Text(v.to_string()));
        ResultRow {
            coordinates: coordinates.iter().map(text).collect::<BTreeMap<_, _>>(),
            repetition: 0,
            seeds: Vec::new(),
            outcome: CellOutcome::Failed("not run here".into()),
        }
    }

    /// A row with a variant's parameter value is the variant's; without it, or with the
    /// default, the map's; a map the registry does not know keeps its name; no map, no series.
    #[test]
    fn a_rows_variant_parameter_names_its_series() {
        let series = rfbench_registry::series::all()
            .find(|s| s.variant.is_some())
            .unwrap();
        let (map, v) = (series.map.name, series.variant.unwrap());
        let default = Series::plain(series.map).value_of(v.param).unwrap();
        let name = |c: &[(&str, &str)]| series_name(&row(c));
        assert_eq!(name(&[("map", map), (v.param, v.value)]).unwrap(), v.name);
        assert_eq!(name(&[("map", map), (v.param, default)]).unwrap(), map);
        assert_eq!(name(&[("map", map)]).unwrap(), map);
        let exact = rfbench_registry::exact_map().name;
        assert_eq!(name(&[("map", exact)]).unwrap(), exact);
        assert_eq!(name(&[("map", "mine")]).unwrap(), "mine");
        assert_eq!(name(&[("learner", "x")]), None);
    }
}
