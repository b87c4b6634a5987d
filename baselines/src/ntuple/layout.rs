//! Tuples: which squares each table looks at.
//!
//! A tuple is an ordered list of frame cells (row 0 = the viewer's back
//! row); its table index is `sum_k symbol(cell_k) * 16^k`, the first cell
//! being the least significant digit. Tuples never contain a lake (a lake's
//! symbol never changes, so it would only waste table space).
//!
//! **Mirror sharing.** Every table is read by a tuple and by its left-right
//! mirror image, whose cells are the mirrored cells in the same order, so a
//! pattern and its mirror image hit the same entry: the value of a position
//! equals the value of its mirror image by construction. A placement that is
//! its own mirror as a set (the centre lane) still has two tuples, one the
//! mirrored reading of the other. Each table's tuples are consecutive in the
//! list.
//!
//! **Layouts** are named by their components joined with `+`, each placed
//! systematically (every placement of a shape on the board off the lakes):
//!
//! | component | tuples | tables | weights |
//! |---|---|---|---|
//! | `singles` | every square on its own | 46 of 16 | 736 |
//! | `lines2` | adjacent pairs, horizontal and vertical | 83 of 16^2 | 21,248 |
//! | `lines3` | straight lines of 3, horizontal and vertical | 64 of 16^3 | 262,144 |
//! | `mouths` | the two lake mouths: the 2x2 squares of the side lanes (a5-b6, mirrored i5-j6) and of the centre lane (e5-f6) | 2 of 16^4 | 131,072 |
//! | `squares` | every 2x2 square (includes the mouths) | 36 of 16^4 | 2,359,296 |
//! | `material` | not squares: for each piece type, own count x opponent's count alive | 12 of 16^2 | 3,072 |
//!
//! The default, [`DEFAULT`], is `singles+lines2+material` (25,056 weights,
//! 100 KB as f32), 16 times smaller than `singles+lines3+mouths+material`
//! (its tables fit in the L2 cache); pilot runs reported it learning as
//! fast as the larger layout, but their figures were not kept
//! (docs/NTUPLE.md section 7).
//!
//! **Material tables** (`material`): table `t` (a piece type, in
//! `PieceType::index` order) is indexed by `own[t] + 16 * opp[t]`, the
//! viewer's pieces of that type on the board and the opponent's pieces of
//! that type not lost yet (see `alphabet::Material`). They follow the
//! square tables and take no part in the mirror (the material of a position
//! and its mirror image is the same).

use super::alphabet::{mirror_cell, ALPHABET_SIZE};

/// The longest tuple a layout may hold (16^6 entries per table).
pub const MAX_TUPLE: usize = 6;

/// One tuple: the table it reads and its cells, in digit order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuple {
    pub table: usize,
    pub cells: Vec<u8>,
}

/// A named list of tuples, and whether the material tables follow them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub name: String,
    pub tuples: Vec<Tuple>,
    pub material: bool,
}

/// The components a layout name may join with `+`.
pub const COMPONENTS: [&str; 6] = ["singles", "lines2", "lines3", "mouths", "squares", "material"];

/// The default layout.
pub const DEFAULT: &str = "singles+lines2+material";

/// Material tables: one per piece type, each indexed by two counts below 16.
pub const MATERIAL_TABLES: usize = 12;
pub const MATERIAL_ENTRIES: usize = 256;

/// The engine's lakes (`square::LAKE_MASK`, their one definition).
fn is_lake(cell: usize) -> bool {
    cell < 100 && (stratego_engine::square::LAKE_MASK >> cell) & 1 == 1
}

/// Every placement of a shape (row, column offsets) on the board off the lakes.
fn placements(shape: &[(usize, usize)]) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    for row in 0..10 {
        for col in 0..10 {
            let cells: Option<Vec<u8>> = shape
                .iter()
                .map(|&(dr, dc)| {
                    let (r, c) = (row + dr, col + dc);
                    (r < 10 && c < 10 && !is_lake(10 * r + c)).then_some((10 * r + c) as u8)
                })
                .collect();
            found.extend(cells);
        }
    }
    found
}

fn mirrored(cells: &[u8]) -> Vec<u8> {
    cells.iter().map(|&c| mirror_cell(c as usize) as u8).collect()
}

fn sorted(cells: &[u8]) -> Vec<u8> {
    let mut s = cells.to_vec();
    s.sort_unstable();
    s
}

/// Adds one table per mirror pair of placements: the placement and its mirror reading.
fn add_mirror_pairs(tuples: &mut Vec<Tuple>, placements: Vec<Vec<u8>>) {
    for cells in placements {
        let mirror = mirrored(&cells);
        // Each pair is met twice (once from each side) unless it is its own
        // mirror as a set; keep the reading whose sorted cells come first.
        if sorted(&cells) > sorted(&mirror) {
            continue;
        }
        let table = tuples.last().map_or(0, |t| t.table + 1);
        tuples.push(Tuple { table, cells });
        tuples.push(Tuple { table, cells: mirror });
    }
}

const LINE3_H: [(usize, usize); 3] = [(0, 0), (0, 1), (0, 2)];
const LINE3_V: [(usize, usize); 3] = [(0, 0), (1, 0), (2, 0)];
const LINE2_H: [(usize, usize); 2] = [(0, 0), (0, 1)];
const LINE2_V: [(usize, usize); 2] = [(0, 0), (1, 0)];
const SQUARE: [(usize, usize); 4] = [(0, 0), (0, 1), (1, 0), (1, 1)];

impl Layout {
    /// A layout by name: components joined with `+` (see the module
    /// documentation), each at most once.
    pub fn preset(name: &str) -> Result<Layout, String> {
        let mut tuples = Vec::new();
        let mut material = false;
        let mut seen: Vec<&str> = Vec::new();
        for component in name.split('+') {
            if seen.contains(&component) {
                return Err(format!("tuple layout `{name}` names `{component}` twice"));
            }
            seen.push(component);
            match component {
                "singles" => add_mirror_pairs(&mut tuples, placements(&[(0, 0)])),
                "lines2" => {
                    add_mirror_pairs(&mut tuples, placements(&LINE2_H));
                    add_mirror_pairs(&mut tuples, placements(&LINE2_V));
                }
                "lines3" => {
                    add_mirror_pairs(&mut tuples, placements(&LINE3_H));
                    add_mirror_pairs(&mut tuples, placements(&LINE3_V));
                }
                // The lane squares between the lakes: rows 5-6 (frame rows 4-5).
                "mouths" => add_mirror_pairs(
                    &mut tuples,
                    placements(&SQUARE).into_iter().filter(|cells| cells[0] / 10 == 4).collect(),
                ),
                "squares" => add_mirror_pairs(&mut tuples, placements(&SQUARE)),
                "material" => material = true,
                _ => {
                    return Err(format!(
                        "unknown tuple layout component `{component}` in `{name}`; expected components of {} joined with `+`",
                        COMPONENTS.join(", ")
                    ))
                }
            }
        }
        if tuples.is_empty() {
            return Err(format!("tuple layout `{name}` has no square tuples"));
        }
        Ok(Layout { name: name.to_string(), tuples, material })
    }

    /// Number of tables.
    pub fn tables(&self) -> usize {
        self.tuples.last().map_or(0, |t| t.table + 1)
    }

    /// The entries of each table (16^length).
    pub fn table_sizes(&self) -> Vec<usize> {
        let mut sizes = vec![0; self.tables()];
        for t in &self.tuples {
            sizes[t.table] = ALPHABET_SIZE.pow(t.cells.len() as u32);
        }
        sizes
    }

    /// Checks what a table file's tuple list must satisfy: tables numbered
    /// from 0 with their tuples consecutive, one length per table, 1 to
    /// `MAX_TUPLE` distinct cells, no lakes.
    pub fn validate(&self) -> Result<(), String> {
        if self.tuples.is_empty() {
            return Err("the tuple list is empty".into());
        }
        let mut expected_table = 0;
        let mut length = 0;
        for (i, t) in self.tuples.iter().enumerate() {
            if i == 0 || t.table != self.tuples[i - 1].table {
                if t.table != expected_table {
                    return Err(format!(
                        "tuple {i} reads table {}, expected table {expected_table} (tables are numbered from 0, their tuples consecutive)",
                        t.table
                    ));
                }
                expected_table += 1;
                length = t.cells.len();
            }
            if t.cells.is_empty() || t.cells.len() > MAX_TUPLE {
                return Err(format!("tuple {i} has {} cells; expected 1 to {MAX_TUPLE}", t.cells.len()));
            }
            if t.cells.len() != length {
                return Err(format!(
                    "tuple {i} has {} cells but table {} has tuples of {length}",
                    t.cells.len(),
                    t.table
                ));
            }
            if let Some(&c) = t.cells.iter().find(|&&c| c >= 100 || is_lake(c as usize)) {
                return Err(format!("tuple {i} holds cell {c}, which is off the board or a lake"));
            }
            if sorted(&t.cells).windows(2).any(|w| w[0] == w[1]) {
                return Err(format!("tuple {i} holds a cell twice"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_have_the_documented_sizes() {
        let count = |name: &str| {
            let l = Layout::preset(name).unwrap();
            l.validate().unwrap();
            (l.tuples.len(), l.tables(), l.table_sizes().iter().sum::<usize>())
        };
        assert_eq!(count("singles"), (92, 46, 46 * 16));
        assert_eq!(count("lines2"), (166, 83, 83 * 256));
        assert_eq!(count("lines3"), (128, 64, 64 * 4096));
        assert_eq!(count("mouths"), (4, 2, 2 * 65536));
        assert_eq!(count("squares"), (72, 36, 36 * 65536));
        let default = Layout::preset(DEFAULT).unwrap();
        assert!(default.material);
        assert_eq!(count(DEFAULT).2 + MATERIAL_TABLES * MATERIAL_ENTRIES, 25_056);
        assert_eq!(count("singles+lines3+mouths").2 + MATERIAL_TABLES * MATERIAL_ENTRIES, 397_024);
        assert!(Layout::preset("snakes").unwrap_err().contains("unknown tuple layout component `snakes`"));
        assert!(Layout::preset("lines3+lines3").unwrap_err().contains("twice"));
        assert!(Layout::preset("material").unwrap_err().contains("no square tuples"));
    }

    #[test]
    fn every_table_is_read_by_a_tuple_and_its_mirror() {
        for name in COMPONENTS.iter().filter(|&&c| c != "material") {
            let l = Layout::preset(name).unwrap();
            for pair in l.tuples.chunks(2) {
                assert_eq!(pair[0].table, pair[1].table);
                assert_eq!(mirrored(&pair[0].cells), pair[1].cells);
            }
        }
        // The mouths: the side lane and the centre lane.
        let l = Layout::preset("mouths").unwrap();
        let mouths: Vec<&Vec<u8>> = l.tuples.iter().map(|t| &t.cells).collect();
        assert_eq!(
            mouths,
            [&vec![40, 41, 50, 51], &vec![49, 48, 59, 58], &vec![44, 45, 54, 55], &vec![45, 44, 55, 54]]
        );
    }
}
