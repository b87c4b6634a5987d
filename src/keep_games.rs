//! `--keep-games N` (`arena`, `register run`): of a match's game records,
//! N become `stratego view` pages beside them (`pages/NNNNN.html`,
//! everything shown), player A's losses first, then its draws, then its
//! wins, each kind in game order: the games worth looking at, where the
//! match's output already is.

use std::path::Path;

use stratego_evaluation::report::record_path;
use stratego_support::files::read_text;
use stratego_ucc::protocol::ucc_rules;
use stratego_viewer::{read_game, render, Perspective};

use crate::{write_new_file, CliError};

/// Which `keep` of the games (index, A's points) get pages: the fewest
/// points first, ties by index.
pub fn chosen(games: &[(u32, f64)], keep: usize) -> Vec<u32> {
    let mut order = games.to_vec();
    order.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    order.into_iter().take(keep).map(|(index, _)| index).collect()
}

/// Writes the pages of the chosen games into `dir/pages/`; returns how many.
pub fn write_pages(dir: &Path, games: &[(u32, f64)], keep: usize) -> Result<usize, CliError> {
    let chosen = chosen(games, keep);
    if chosen.is_empty() {
        return Ok(0);
    }
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).map_err(|e| format!("cannot create {}: {e}", pages.display()))?;
    for index in &chosen {
        let record = dir.join(record_path(*index));
        let text = read_text(&record).map_err(|e| format!("cannot read {}: {e}", record.display()))?;
        let game = read_game(&text, ucc_rules()).map_err(|e| format!("{}: {e}", record.display()))?;
        let title = format!("game {index} of {}", dir.display());
        let html = render(&game, &title, Perspective::All, None).map_err(|e| format!("{}: {e}", record.display()))?;
        write_new_file(&pages.join(format!("{index:05}.html")), &html)?;
    }
    Ok(chosen.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_come_first_then_draws_then_wins_each_in_game_order() {
        let games = [(0, 1.0), (1, 0.0), (2, 0.5), (3, 0.0), (4, 1.0)];
        assert_eq!(chosen(&games, 3), [1, 3, 2]);
        assert_eq!(chosen(&games, 10), [1, 3, 2, 0, 4]);
        assert!(chosen(&games, 0).is_empty());
    }
}
