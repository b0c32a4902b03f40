//! Parser for the raw UCI Adult files (`adult.data`, `adult.test`).
//!
//! Encoding (ours, documented here; LIBSVM's a9a binarises the continuous attributes into
//! quantile bins instead, which is why a9a has 123 columns):
//!
//! - columns 0-5: the six continuous attributes as published, in file order: age, fnlwgt,
//!   education-num, capital-gain, capital-loss, hours-per-week;
//! - columns 6-104: one one-hot block per categorical attribute, in file order (workclass 8,
//!   education 16, marital-status 7, occupation 14, relationship 6, race 5, sex 2,
//!   native-country 41), each block's categories in the order `adult.names` lists them. A
//!   missing value (`?`) leaves its block all zero, as a9a does.
//!
//! That is d = 105. Labels: `>50K` (and the test file's `>50K.`) is +1, `<=50K` / `<=50K.` is
//! -1. Lines starting with `|` (the test file's first line) and blank lines are skipped. An
//! unknown category, a wrong field count or a bad number is an error naming file and line.

use std::io::BufRead;
use std::path::Path;

use rfbench_maps::CsrMatrix;

use super::error::{DataError, Result};
use super::rows::{parse_finite, RowBuilder};

/// The categorical attributes and their categories, as `adult.names` lists them.
const CATEGORIES: [(usize, &str, &[&str]); 8] = [
    (
        1,
        "workclass",
        &[
            "Private",
            "Self-emp-not-inc",
            "Self-emp-inc",
            "Federal-gov",
            "Local-gov",
            "State-gov",
            "Without-pay",
            "Never-worked",
        ],
    ),
    (
        3,
        "education",
        &[
            "Bachelors",
            "Some-college",
            "11th",
            "HS-grad",
            "Prof-school",
            "Assoc-acdm",
            "Assoc-voc",
            "9th",
            "7th-8th",
            "12th",
            "Masters",
            "1st-4th",
            "10th",
            "Doctorate",
            "5th-6th",
            "Preschool",
        ],
    ),
    (
        5,
        "marital-status",
        &[
            "Married-civ-spouse",
            "Divorced",
            "Never-married",
            "Separated",
            "Widowed",
            "Married-spouse-absent",
            "Married-AF-spouse",
        ],
    ),
    (
        6,
        "occupation",
        &[
            "Tech-support",
            "Craft-repair",
            "Other-service",
            "Sales",
            "Exec-managerial",
            "Prof-specialty",
            "Handlers-cleaners",
            "Machine-op-inspct",
            "Adm-clerical",
            "Farming-fishing",
            "Transport-moving",
            "Priv-house-serv",
            "Protective-serv",
            "Armed-Forces",
        ],
    ),
    (
        7,
        "relationship",
        &[
            "Wife",
            "Own-child",
            "Husband",
            "Not-in-family",
            "Other-relative",
            "Unmarried",
        ],
    ),
    (
        8,
        "race",
        &[
            "White",
            "Asian-Pac-Islander",
            "Amer-Indian-Eskimo",
            "Other",
            "Black",
        ],
    ),
    (9, "sex", &["Female", "Male"]),
    (
        13,
        "native-country",
        &[
            "United-States",
            "Cambodia",
            "England",
            "Puerto-Rico",
            "Canada",
            "Germany",
            "Outlying-US(Guam-USVI-etc)",
            "India",
            "Japan",
            "Greece",
            "South",
            "China",
            "Cuba",
            "Iran",
            "Honduras",
            "Philippines",
            "Italy",
            "Poland",
            "Jamaica",
            "Vietnam",
            "Mexico",
            "Portugal",
            "Ireland",
            "France",
            "Dominican-Republic",
            "Laos",
            "Ecuador",
            "Taiwan",
            "Haiti",
            "Columbia",
            "Hungary",
            "Guatemala",
            "Nicaragua",
            "Scotland",
            "Thailand",
            "Yugoslavia",
            "El-Salvador",
            "Trinadad&Tobago",
            "Peru",
            "Hong",
            "Holand-Netherlands",
        ],
    ),
];

/// The continuous attributes' field positions and names.
const CONTINUOUS: [(usize, &str); 6] = [
    (0, "age"),
    (2, "fnlwgt"),
    (4, "education-num"),
    (10, "capital-gain"),
    (11, "capital-loss"),
    (12, "hours-per-week"),
];

/// Columns of the encoding: 6 continuous + 99 one-hot.
pub const UCI_ADULT_COLUMNS: usize = 105;

/// Parses one raw Adult file (see the module doc for the encoding).
pub fn parse_uci_adult(reader: impl BufRead, origin: &Path) -> Result<(CsrMatrix, Vec<f64>)> {
    let mut rows = RowBuilder::new();
    read_uci_adult(&mut rows, reader, origin)?;
    rows.finish(UCI_ADULT_COLUMNS, origin)
}

pub(crate) fn read_uci_adult(
    rows: &mut RowBuilder,
    mut reader: impl BufRead,
    origin: &Path,
) -> Result<()> {
    let before = rows.n_rows();
    let mut line = String::new();
    let mut line_no = 0;
    loop {
        line.clear();
        let read = reader.read_line(&mut line).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                DataError::Parse {
                    path: origin.to_path_buf(),
                    line: line_no + 1,
                    problem: "not valid UTF-8".into(),
                }
            } else {
                DataError::io("cannot read", origin, e)
            }
        })?;
        if read == 0 {
            break;
        }
        line_no += 1;
        let text = line.trim();
        if text.is_empty() || text.starts_with('|') {
            continue;
        }
        parse_record(rows, text).map_err(|problem| DataError::Parse {
            path: origin.to_path_buf(),
            line: line_no,
            problem,
        })?;
    }
    if rows.n_rows() == before {
        return Err(DataError::Empty {
            path: origin.to_path_buf(),
        });
    }
    Ok(())
}

fn parse_record(rows: &mut RowBuilder, text: &str) -> std::result::Result<(), String> {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    if fields.len() != 15 {
        return Err(format!(
            "{} fields, expected 14 attributes and the label",
            fields.len()
        ));
    }
    let label = match fields[14] {
        ">50K" | ">50K." => 1.0,
        "<=50K" | "<=50K." => -1.0,
        other => return Err(format!("label '{other}' is neither '>50K' nor '<=50K'")),
    };
    let mut continuous = [0.0; 6];
    for (slot, &(field, name)) in continuous.iter_mut().zip(&CONTINUOUS) {
        *slot = parse_finite(fields[field]).map_err(|why| format!("{name}: {why}"))?;
    }
    let mut one_hot = [None; 8];
    let mut offset = CONTINUOUS.len();
    for (slot, &(field, name, categories)) in one_hot.iter_mut().zip(&CATEGORIES) {
        let value = fields[field];
        if value != "?" {
            let k = categories
                .iter()
                .position(|c| *c == value)
                .ok_or_else(|| format!("{name}: unknown category '{value}'"))?;
            *slot = Some(offset + k);
        }
        offset += categories.len();
    }
    for (j, v) in continuous.into_iter().enumerate() {
        rows.push(j, v);
    }
    for column in one_hot.into_iter().flatten() {
        rows.push(column, 1.0);
    }
    rows.end_row(label);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn encoding_has_the_documented_width() {
        let widths: usize = CATEGORIES.iter().map(|c| c.2.len()).sum();
        assert_eq!(CONTINUOUS.len() + widths, UCI_ADULT_COLUMNS);
    }

    #[test]
    fn records_encode_and_test_labels_with_dots() {
        let text = "|1x3 Cross validator\n\
            25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.\n\
            38, ?, 89814, HS-grad, 9, Married-civ-spouse, ?, Husband, White, Male, 0, 0, 50, ?, >50K.\n\n";
        let (x, y) = parse_uci_adult(text.as_bytes(), Path::new("adult.test")).unwrap();
        assert_eq!(y, [-1.0, 1.0]);
        let (idx, val) = x.row_parts(0);
        // age, fnlwgt, education-num, hours (capital gain/loss are 0), then 8 categories.
        assert_eq!(val[..4], [25.0, 226_802.0, 7.0, 40.0]);
        assert_eq!(idx.len(), 4 + 8);
        // workclass Private is column 6; education 11th is 6 + 8 + 2.
        assert_eq!(idx[4..6], [6, 16]);
        // Three '?' leave three blocks empty.
        assert_eq!(x.row_parts(1).0.len(), 4 + 5);
    }

    #[test]
    fn malformed_records_name_file_and_line() {
        let good = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K";
        let cases = [
            (
                good.replace("State-gov", "Space-gov"),
                "workclass: unknown category 'Space-gov'",
            ),
            (good.replace(", <=50K", ", maybe"), "label 'maybe'"),
            (
                good.replace("77516", "77x16"),
                "fnlwgt: '77x16' is not a number",
            ),
            (good.replace(", 40,", ","), "14 fields"),
        ];
        for (bad, problem) in cases {
            let text = format!("{good}\n{bad}\n");
            let msg = parse_uci_adult(text.as_bytes(), Path::new("adult.data"))
                .unwrap_err()
                .to_string();
            assert!(
                msg.starts_with("adult.data:2: ") && msg.contains(problem),
                "{msg}"
            );
        }
        let msg = parse_uci_adult(&b"|comment only\n"[..], Path::new("a")).unwrap_err();
        assert!(matches!(msg, DataError::Empty { .. }));
    }

    #[test]
    fn the_mirrored_uci_files_parse() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/adult");
        if !dir.join("adult.data").is_file() {
            println!("skipped: no Adult mirror at {}", dir.display());
            return;
        }
        let mut rows = RowBuilder::new();
        for file in ["adult.data", "adult.test"] {
            let path = dir.join(file);
            let input = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
            read_uci_adult(&mut rows, input, &path).unwrap();
        }
        let (x, y) = rows.finish(UCI_ADULT_COLUMNS, &dir).unwrap();
        assert_eq!(x.n_rows(), 48_842);
        // The same positives as a9a + a9a.t (7,841 + 3,846), which were built from these files.
        assert_eq!(y.iter().filter(|&&v| v == 1.0).count(), 11_687);
        assert_eq!(y.iter().filter(|&&v| v == -1.0).count(), 37_155);
    }
}
