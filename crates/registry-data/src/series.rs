//! The series `rfbench compare` sweeps: each feature map at its defaults, and each of its
//! [`CompareVariant`]s (RFF's phase form) as a series of its own, with its own ladder of D,
//! penalty, plateau, decisions and place in the figures. A series is named by the map's name,
//! or by its variant's (`rff:phase`); a result row's series is its map and the values of the
//! parameters the map's variants set.

use crate::maps::{CompareVariant, MapInfo, MAPS};
use crate::params::{Default, ParamKind};

/// A map at its defaults, or one of its variants.
#[derive(Debug, Clone, Copy)]
pub struct Series {
    pub map: &'static MapInfo,
    pub variant: Option<&'static CompareVariant>,
}

impl PartialEq for Series {
    fn eq(&self, other: &Series) -> bool {
        self.name() == other.name()
    }
}

impl Series {
    /// The map at its defaults.
    pub fn plain(map: &'static MapInfo) -> Series {
        Series { map, variant: None }
    }

    /// What `--maps`, the report and `answer.json` call it.
    pub fn name(&self) -> &'static str {
        self.variant.map_or(self.map.name, |v| v.name)
    }

    /// For legends and tables.
    pub fn label(&self) -> &'static str {
        self.variant.map_or(self.map.label, |v| v.label)
    }

    /// scikit-learn's counterpart: the variant's own, else the map's.
    pub fn sklearn(&self) -> Option<&'static str> {
        self.variant.and_then(|v| v.sklearn).or(self.map.sklearn)
    }

    /// The parameters the map's variants set, each once, in the order of the variants: what a
    /// spec must give each of the map's series to tell them apart.
    pub fn variant_params(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for v in self.map.compare_variants {
            if !out.contains(&v.param) {
                out.push(v.param);
            }
        }
        out
    }

    /// The value this series gives the map's choice parameter `param`: the variant's, else the
    /// parameter's default; `None` when the map has no such choice parameter.
    pub fn value_of(&self, param: &str) -> Option<&'static str> {
        if let Some(v) = self.variant.filter(|v| v.param == param) {
            return Some(v.value);
        }
        let spec = self.map.params.iter().find(|p| p.name == param)?;
        match (spec.kind, spec.default) {
            (ParamKind::Choice(_), Some(Default::Text(value))) => Some(value),
            _ => None,
        }
    }

    /// The series of a cell or result row of `map` whose parameters read `value(name)` (absent:
    /// the default); `None` for a map the registry does not know.
    pub fn of<'a>(map: &str, value: impl Fn(&str) -> Option<&'a str>) -> Option<Series> {
        let plain = Series::plain(MAPS.iter().find(|m| m.name == map)?);
        let variant = plain.map.compare_variants.iter().find(|v| {
            let given = value(v.param).or_else(|| plain.value_of(v.param));
            given == Some(v.value)
        });
        Some(Series { variant, ..plain })
    }
}

/// Every series of the registry: each map, then its variants, in the registry's order.
pub fn all() -> impl Iterator<Item = Series> {
    MAPS.iter().flat_map(of_map)
}

/// `map`'s series: itself at its defaults, then its variants.
pub fn of_map(map: &'static MapInfo) -> impl Iterator<Item = Series> {
    std::iter::once(Series::plain(map)).chain(map.compare_variants.iter().map(move |v| Series {
        map,
        variant: Some(v),
    }))
}

/// The series named `name` (a map's name, or a variant's).
pub fn named(name: &str) -> Option<Series> {
    all().find(|s| s.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A variant is named `map:value`, sets one of the map's choice parameters to one of its
    /// values other than the default, and no two series share a name.
    #[test]
    fn every_variant_is_a_non_default_value_of_a_choice_parameter_of_its_map() {
        let mut names: Vec<&str> = Vec::new();
        let mut variants = 0;
        for series in all() {
            assert!(!names.contains(&series.name()), "{} twice", series.name());
            names.push(series.name());
            let Some(v) = series.variant else {
                continue;
            };
            variants += 1;
            let map = series.map;
            assert_eq!(v.name, format!("{}:{}", map.name, v.value));
            let spec = map.params.iter().find(|p| p.name == v.param).unwrap();
            let ParamKind::Choice(words) = spec.kind else {
                panic!("{}: {} is not a choice", v.name, v.param);
            };
            assert!(words.contains(&v.value), "{}", v.name);
            assert_ne!(Series::plain(map).value_of(v.param), Some(v.value));
            assert!(map.is_feature_map(), "{}", v.name);
        }
        assert!(variants >= 1, "no map has a variant compare sweeps");
    }

    /// A row's series comes from its map and its parameters; a row that leaves the parameter
    /// out has the default.
    #[test]
    fn a_rows_series_is_its_map_and_its_variant_parameters() {
        let (map, v) = MAPS
            .iter()
            .find_map(|m| Some((m, m.compare_variants.first()?)))
            .unwrap();
        let of = |value: Option<&'static str>| {
            Series::of(map.name, |p| (p == v.param).then_some(value).flatten()).unwrap()
        };
        assert_eq!(of(Some(v.value)).name(), v.name);
        assert_eq!(of(None).name(), map.name);
        let default = Series::plain(map).value_of(v.param);
        assert_eq!(of(default).name(), map.name);
        assert_eq!(named(v.name).unwrap().variant, Some(v));
        assert_eq!(named(map.name).unwrap().variant, None);
        assert_ne!(named(v.name).unwrap().label(), map.label);
        assert!(named("no-such-map").is_none());
        assert!(Series::of("no-such-map", |_| None).is_none());
    }
}
