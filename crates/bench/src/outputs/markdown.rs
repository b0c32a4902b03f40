//! Markdown tables: every table rfbench writes (a spec's tables, compare's table of every cell
//! and of its stages) is written by these, so that a `|` inside a cell is escaped everywhere.

/// `text` safe inside a table cell.
pub fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

/// One table line: `| a | b |`.
pub fn row<S: AsRef<str>>(parts: &[S]) -> String {
    let cells: Vec<String> = parts.iter().map(|p| escape(p.as_ref())).collect();
    format!("| {} |\n", cells.join(" | "))
}

/// The header line and the line under it, for `header`.
pub fn header<S: AsRef<str>>(header: &[S]) -> String {
    format!("{}|{}\n", row(header), "---|".repeat(header.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_escapes_its_cells() {
        let text = header(&["cell", "score"]) + &row(&["a|b", "1.00"]);
        assert_eq!(text, "| cell | score |\n|---|---|\n| a\\|b | 1.00 |\n");
    }
}
