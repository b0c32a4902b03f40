//! Stage 2: profiles. A spec's lists are its full run; a `[profiles.NAME]` table replaces some of
//! its values by name (fewer repetitions, fewer values of D, another dataset) for a run written
//! beside the full one as `results/NAME/PROFILE.csv`. `quick` is the profile CI checks; a spec may have
//! any number of others (a stand-in dataset, a small trial).

use std::collections::BTreeMap;

use toml::Spanned;

use super::raw::{RawSpec, Table};
use crate::outputs::Output;
use crate::spec_error::{Checker, SpecResult};

/// Each seed's scope by name, as `[seeds]` writes it.
pub(crate) type SeedScopes = BTreeMap<String, Spanned<Vec<String>>>;

/// Which values a run uses: the spec's own lists, or a named profile's replacements.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Profile {
    Full,
    Named(String),
}

impl Profile {
    /// The profile CI checks against the committed `results/NAME/quick.csv`.
    pub fn quick() -> Profile {
        Profile::Named("quick".to_string())
    }

    /// `full`, or the profile's name (the CSV's `profile` column).
    pub fn name(&self) -> &str {
        match self {
            Profile::Full => "full",
            Profile::Named(name) => name,
        }
    }

    /// `--profile NAME` as given on the command line (`full` is the spec's own lists).
    pub fn parse(name: &str) -> Profile {
        match name {
            "full" => Profile::Full,
            other => Profile::Named(other.to_string()),
        }
    }
}

/// The profile's replacements, applied by key name when a stage reads a value.
pub(crate) struct Overlay<'a> {
    /// The profile's name and table (`None` for the full run).
    profile: Option<(&'a str, &'a Table)>,
}

impl<'a> Overlay<'a> {
    /// Checks every profile of `raw` (each replaces only values the spec sets, and its name can
    /// be part of a file name), then selects `profile`'s.
    pub fn new(raw: &'a RawSpec, c: Checker<'_>, profile: &Profile) -> SpecResult<Overlay<'a>> {
        for (name, table) in &raw.profiles {
            check_profile(raw, c, name, table)?;
        }
        let profile = match profile {
            Profile::Full => None,
            Profile::Named(name) => match raw.profiles.get_key_value(name) {
                Some((name, table)) => Some((name.as_str(), table)),
                None => {
                    let known: Vec<&String> = raw.profiles.keys().collect();
                    return Err(c.whole(format!(
                        "profile {name:?} needs a [profiles.{name}] table; this spec's profiles: {known:?}"
                    )));
                }
            },
        };
        Ok(Overlay { profile })
    }

    /// Whether a profile is applied (`false` for the full run).
    pub fn is_profile(&self) -> bool {
        self.profile.is_some()
    }

    /// The spec's `[seeds]` scopes with the profile's replacements (a profile that draws new
    /// data in every repetition: `data_seed = ["repetition"]`).
    pub fn seed_scopes(&self, raw: &RawSpec, c: Checker<'_>) -> SpecResult<SeedScopes> {
        let mut scopes = raw.seeds.clone();
        let Some((profile, table)) = self.profile else {
            return Ok(scopes);
        };
        for (name, scope) in scopes.iter_mut() {
            let Some(value) = table.get(name) else {
                continue;
            };
            let axes: Option<Vec<String>> = value.get_ref().as_array().and_then(|items| {
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect()
            });
            let Some(axes) = axes else {
                return Err(c.at_span(
                    &format!("profiles.{profile}.{name}"),
                    &value.span(),
                    "a seed's scope is a list of axis names (and \"repetition\")",
                ));
            };
            *scope = Spanned::new(value.span(), axes);
        }
        Ok(scopes)
    }

    /// `section.name`'s value, or the profile's replacement, with the key to blame.
    pub fn pick(
        &self,
        section: &str,
        name: &str,
        value: &Spanned<toml::Value>,
    ) -> (String, Spanned<toml::Value>) {
        match self.profile.and_then(|(p, t)| Some((p, t.get(name)?))) {
            Some((profile, v)) => (format!("profiles.{profile}.{name}"), v.clone()),
            None => (format!("{section}.{name}"), value.clone()),
        }
    }
}

/// The outputs `profile` draws of `items` (the spec's `key`, e.g. `tables`): those without a
/// `profiles` list and those whose list names it. A listed name that is neither `full` nor one of
/// the spec's profiles is an error at its line.
pub(crate) fn drawn_in<T: Output + Clone>(
    raw: &RawSpec,
    c: Checker<'_>,
    key: &str,
    items: &[T],
    profile: &Profile,
) -> SpecResult<Vec<T>> {
    let mut drawn = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(names) = item.profiles() else {
            drawn.push(item.clone());
            continue;
        };
        if let Some(unknown) = names
            .get_ref()
            .iter()
            .find(|n| *n != "full" && !raw.profiles.contains_key(*n))
        {
            let known: Vec<&String> = raw.profiles.keys().collect();
            return Err(c.at_span(
                &format!("{key}[{i}].profiles"),
                &names.span(),
                format!("unknown profile {unknown:?}; \"full\" or one of this spec's: {known:?}"),
            ));
        }
        if names.get_ref().iter().any(|n| n == profile.name()) {
            drawn.push(item.clone());
        }
    }
    Ok(drawn)
}

fn check_profile(raw: &RawSpec, c: Checker<'_>, name: &str, table: &Table) -> SpecResult<()> {
    let valid_name = !name.is_empty()
        && name != "full"
        && name
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-' || ch == '_');
    if !valid_name {
        return Err(c.whole(format!(
            "[profiles.{name}]: a profile's name is part of its results' file name: lower-case \
             letters, digits, '-' and '_', and not \"full\" (the spec's own lists)"
        )));
    }
    for (key, value) in table {
        let known = raw.run.contains_key(key)
            || raw.data.contains_key(key)
            || raw.kernel.contains_key(key)
            || raw.grid.contains_key(key)
            || raw.seeds.contains_key(key);
        if !known {
            return Err(c.at_span(
                &format!("profiles.{name}.{key}"),
                &value.span(),
                "a profile may only replace a key of [run], [data], [kernel], [grid] or [seeds] \
                 that the spec sets",
            ));
        }
    }
    Ok(())
}
