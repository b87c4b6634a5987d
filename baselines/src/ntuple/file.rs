//! Table files: safetensors with the tables as f32 tensors and everything
//! needed to read them in the header's metadata.
//!
//! Tensors: `table.<k>` (f32, shape `[16^n]`, index as in the layout
//! module) for every square table `k`; `material` (f32, `[12 * 256]`) when
//! the layout has material tables; with temporal coherence also
//! `tc.accumulated.<name>` and `tc.absolute.<name>` for each of those
//! (`<name>` = `<k>` or `material`). Metadata (all strings):
//!
//! | key | value |
//! |---|---|
//! | `ntuple.format` | `stratego-ntuple-v1` |
//! | `ntuple.alphabet` | the 16 symbol names, comma-separated, in index order |
//! | `ntuple.squash` | `tanh` |
//! | `ntuple.layout` | the layout's name (informative) |
//! | `ntuple.tuples` | JSON `[[table, [cell, ...]], ...]`, frame cells in digit order |
//! | `ntuple.material` | `type-counts` (material tables present) or `none` |
//! | `ntuple.games` | self-play games trained |
//! | `stratego.ruleset`, `stratego.ruleset_id` | the engine's ruleset, canonical text and id |
//! | `ntuple.training` | the training settings (informative; optional) |
//!
//! Loading checks all of it before it trusts a weight and refuses anything
//! else with an error that names the file and what is wrong; it never
//! panics on a bad file.

use std::collections::HashMap;
use std::path::Path;

use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use stratego_engine::Ruleset;

use super::alphabet::alphabet_text;
use super::layout::{Layout, Tuple, MATERIAL_ENTRIES, MATERIAL_TABLES};
use super::net::{Coherence, NTupleNet};

pub const FORMAT: &str = "stratego-ntuple-v1";
pub const SQUASH: &str = "tanh";

/// The largest weight magnitude a table file may hold. Trained tables stay
/// far below it (`registrations/ntuple-td.safetensors` peaks near 4.1e3); a
/// value is a sum over a few hundred weights, so with this bound it can
/// never overflow to infinity and then to NaN (`inf - inf`), which would
/// leave the player no best move.
pub const MAX_ABS_WEIGHT: f32 = 1e9;

const KEY_FORMAT: &str = "ntuple.format";
const KEY_ALPHABET: &str = "ntuple.alphabet";
const KEY_SQUASH: &str = "ntuple.squash";
const KEY_LAYOUT: &str = "ntuple.layout";
const KEY_TUPLES: &str = "ntuple.tuples";
const KEY_MATERIAL: &str = "ntuple.material";
const MATERIAL_KIND: &str = "type-counts";
const KEY_GAMES: &str = "ntuple.games";
const KEY_RULES: &str = "stratego.ruleset";
const KEY_RULES_ID: &str = "stratego.ruleset_id";
const KEY_TRAINING: &str = "ntuple.training";
/// The SHA-256 of every weight (then the coherence sums), in file order: a
/// table file corrupted after it was written is refused at load. Files
/// from before it was written (the registered ones) load without it.
const KEY_SHA256: &str = "ntuple.sha256";

fn digest(weights: &[f32], coherence: Option<&Coherence>) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    let mut feed = |values: &[f32]| values.iter().for_each(|v| hash.update(v.to_le_bytes()));
    feed(weights);
    if let Some(tc) = coherence {
        feed(&tc.accumulated);
        feed(&tc.absolute);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A table file that cannot be read or written, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("n-tuple table file {path}: {why}")]
pub struct TableFileError {
    pub path: String,
    pub why: String,
    /// What kind of failure it is: a resume skips only damaged files.
    pub fault: TableFault,
}

/// The kinds of [`TableFileError`] a caller acts on differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFault {
    /// Not a whole table file of ours: absent, truncated, corrupted, not
    /// matching its checksum, another format.
    Damaged,
    /// A whole table file, written for other rules than asked for.
    OtherRules,
    /// Cannot be read or written for the machine's reasons (permissions,
    /// a full disk, an I/O error): the file may well be whole.
    Machine,
}

impl TableFault {
    /// A failed read or write: absent, not a file or not data of ours is
    /// damage; anything else is the machine's.
    fn of_io(error: &std::io::Error) -> TableFault {
        if stratego_support::files::is_damage(error) {
            TableFault::Damaged
        } else {
            TableFault::Machine
        }
    }
}

impl TableFileError {
    fn new(path: &Path, why: String, fault: TableFault) -> TableFileError {
        TableFileError { path: path.display().to_string(), why, fault }
    }
}

fn tensor_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

impl NTupleNet {
    /// The file's bytes; `training` is an optional description of how the
    /// tables were trained, kept in the metadata.
    pub fn to_bytes(&self, training: Option<&str>) -> Vec<u8> {
        let tuples: Vec<(usize, &Vec<u8>)> = self.layout().tuples.iter().map(|t| (t.table, &t.cells)).collect();
        let mut meta = HashMap::from([
            (KEY_FORMAT.to_string(), FORMAT.to_string()),
            (KEY_ALPHABET.to_string(), alphabet_text()),
            (KEY_SQUASH.to_string(), SQUASH.to_string()),
            (KEY_LAYOUT.to_string(), self.layout().name.clone()),
            (KEY_TUPLES.to_string(), serde_json::to_string(&tuples).expect("tuples serialise")),
            (KEY_MATERIAL.to_string(), if self.layout().material { MATERIAL_KIND } else { "none" }.to_string()),
            (KEY_GAMES.to_string(), self.games.to_string()),
            (KEY_RULES.to_string(), self.rules().canonical()),
            (KEY_RULES_ID.to_string(), self.rules().id().to_string()),
        ]);
        if let Some(text) = training {
            meta.insert(KEY_TRAINING.to_string(), text.to_string());
        }
        meta.insert(KEY_SHA256.to_string(), digest(self.weights(), self.coherence()));
        let tables = self.layout().tables();
        // (name, range of the weights) of every tensor.
        let mut parts: Vec<(String, std::ops::Range<usize>)> = Vec::new();
        let mut start = 0;
        for k in 0..tables {
            let end = start + self.table(k).len();
            parts.push((k.to_string(), start..end));
            start = end;
        }
        if self.layout().material {
            parts.push(("material".to_string(), start..start + self.material_tables().len()));
        }
        let mut data: Vec<(String, Vec<u8>)> = Vec::new();
        for (name, range) in &parts {
            let tensor = if name == "material" { name.clone() } else { format!("table.{name}") };
            data.push((tensor, tensor_bytes(&self.weights()[range.clone()])));
            if let Some(tc) = self.coherence() {
                data.push((format!("tc.accumulated.{name}"), tensor_bytes(&tc.accumulated[range.clone()])));
                data.push((format!("tc.absolute.{name}"), tensor_bytes(&tc.absolute[range.clone()])));
            }
        }
        let views: Vec<(String, TensorView<'_>)> = data
            .iter()
            .map(|(name, bytes)| {
                let view =
                    TensorView::new(Dtype::F32, vec![bytes.len() / 4], bytes).expect("f32 bytes fit their shape");
                (name.clone(), view)
            })
            .collect();
        let mut bytes = safetensors::tensor::serialize(views, Some(meta)).expect("tables serialise");
        // Identical tables make identical files.
        stratego_support::files::sort_safetensors_metadata(&mut bytes);
        bytes
    }

    /// Writes the file through a temporary file and a rename, so a crash
    /// never leaves half a table file under the real name.
    pub fn save(&self, path: &Path, training: Option<&str>) -> Result<(), TableFileError> {
        let fail = |e: std::io::Error| TableFileError::new(path, e.to_string(), TableFault::Machine);
        stratego_support::files::write_atomically(path, &self.to_bytes(training)).map_err(fail)
    }

    /// Reads a table file, refusing one written for another ruleset than
    /// `expected` (when given).
    pub fn load(path: &Path, expected: Option<&Ruleset>) -> Result<NTupleNet, TableFileError> {
        let bytes = stratego_support::files::read_data(path)
            .map_err(|e| TableFileError::new(path, format!("cannot read: {e}"), TableFault::of_io(&e)))?;
        let net = NTupleNet::decode(&bytes).map_err(|why| TableFileError::new(path, why, TableFault::Damaged))?;
        match expected {
            Some(expected) => match expected.expect_same(net.rules()) {
                Ok(()) => Ok(net),
                Err(e) => Err(TableFileError::new(path, e.to_string(), TableFault::OtherRules)),
            },
            None => Ok(net),
        }
    }

    /// Reads a table file's bytes (see `load`).
    pub fn from_bytes(bytes: &[u8], expected: Option<&Ruleset>) -> Result<NTupleNet, String> {
        let net = NTupleNet::decode(bytes)?;
        if let Some(expected) = expected {
            expected.expect_same(net.rules()).map_err(|e| e.to_string())?;
        }
        Ok(net)
    }

    /// A table file's bytes as tables, whatever their rules.
    fn decode(bytes: &[u8]) -> Result<NTupleNet, String> {
        let (_, header) = SafeTensors::read_metadata(bytes)
            .map_err(|e| format!("not a safetensors file (truncated or corrupted?): {e}"))?;
        let empty = HashMap::new();
        let meta = header.metadata().as_ref().unwrap_or(&empty);
        let field = |key: &str| meta.get(key).map(String::as_str).ok_or_else(|| format!("metadata `{key}` is missing"));
        let format = field(KEY_FORMAT)?;
        if format != FORMAT {
            return Err(format!("format `{format}` is not the supported `{FORMAT}`"));
        }
        let alphabet = field(KEY_ALPHABET)?;
        if alphabet != alphabet_text() {
            return Err(format!("written for the alphabet `{alphabet}`, this build reads `{}`", alphabet_text()));
        }
        let squash = field(KEY_SQUASH)?;
        if squash != SQUASH {
            return Err(format!("squashing `{squash}` is not the supported `{SQUASH}`"));
        }
        let rules: Ruleset = field(KEY_RULES)?.parse().map_err(|e: stratego_engine::RulesError| e.to_string())?;
        let id = field(KEY_RULES_ID)?;
        if id != rules.id().to_string() {
            return Err(format!("ruleset id {id} does not match its ruleset text (id {})", rules.id()));
        }
        let games: u64 = field(KEY_GAMES)?.parse().map_err(|_| "metadata `ntuple.games` is not a count".to_string())?;
        let tuples: Vec<(usize, Vec<u8>)> = serde_json::from_str(field(KEY_TUPLES)?)
            .map_err(|e| format!("metadata `ntuple.tuples` is malformed: {e}"))?;
        let material = match field(KEY_MATERIAL)? {
            MATERIAL_KIND => true,
            "none" => false,
            other => {
                return Err(format!("metadata `ntuple.material` is `{other}`, expected `{MATERIAL_KIND}` or `none`"))
            }
        };
        let layout = Layout {
            name: field(KEY_LAYOUT)?.to_string(),
            tuples: tuples.into_iter().map(|(table, cells)| Tuple { table, cells }).collect(),
            material,
        };
        layout.validate().map_err(|e| format!("metadata `ntuple.tuples`: {e}"))?;
        let file = SafeTensors::deserialize(bytes).map_err(|e| format!("not a safetensors file: {e}"))?;
        let sizes = layout.table_sizes();
        let read = |name: &str, size: usize| -> Result<Vec<f32>, String> {
            let t = file.tensor(name).map_err(|_| format!("tensor `{name}` is missing"))?;
            if t.dtype() != Dtype::F32 || t.shape() != [size] {
                return Err(format!(
                    "tensor `{name}` is {:?} of shape {:?}, expected F32 of shape [{size}]",
                    t.dtype(),
                    t.shape()
                ));
            }
            let values: Vec<f32> =
                t.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                return Err(format!("tensor `{name}` holds a non-finite value at index {i}"));
            }
            Ok(values)
        };
        let mut parts: Vec<(String, usize)> = sizes.iter().enumerate().map(|(k, &n)| (k.to_string(), n)).collect();
        if material {
            parts.push(("material".to_string(), MATERIAL_TABLES * MATERIAL_ENTRIES));
        }
        let tensor = |name: &str| if name == "material" { name.to_string() } else { format!("table.{name}") };
        let mut weights = Vec::new();
        for (name, size) in &parts {
            let values = read(&tensor(name), *size)?;
            if let Some(i) = values.iter().position(|v| v.abs() > MAX_ABS_WEIGHT) {
                return Err(format!(
                    "tensor `{}` holds {:e} at index {i}, beyond the bound {MAX_ABS_WEIGHT:e} (a sum of such weights can overflow)",
                    tensor(name),
                    values[i]
                ));
            }
            weights.extend(values);
        }
        let has_tc = file.names().iter().any(|n| n.starts_with("tc."));
        let coherence = if has_tc {
            let (mut accumulated, mut absolute) = (Vec::new(), Vec::new());
            for (name, size) in &parts {
                accumulated.extend(read(&format!("tc.accumulated.{name}"), *size)?);
                absolute.extend(read(&format!("tc.absolute.{name}"), *size)?);
            }
            Some(Coherence { accumulated, absolute })
        } else {
            None
        };
        let mut expected: Vec<String> = parts.iter().map(|(name, _)| tensor(name)).collect();
        if has_tc {
            for (name, _) in &parts {
                expected.push(format!("tc.accumulated.{name}"));
                expected.push(format!("tc.absolute.{name}"));
            }
        }
        let mut stray: Vec<&str> = file.names().into_iter().filter(|n| !expected.iter().any(|e| e == n)).collect();
        if !stray.is_empty() {
            stray.sort_unstable();
            return Err(format!("unexpected tensors {stray:?} for this layout"));
        }
        if let Some(want) = meta.get(KEY_SHA256) {
            if *want != digest(&weights, coherence.as_ref()) {
                return Err("the tables do not match their checksum (corrupted after they were written)".into());
            }
        }
        NTupleNet::from_parts(layout, rules, weights, coherence, games)
    }

    /// The `ntuple.training` note of a table file (the command and config
    /// that trained it), if it has one.
    pub fn training_note(path: &Path) -> Result<Option<String>, TableFileError> {
        let bytes = stratego_support::files::read_data(path)
            .map_err(|e| TableFileError::new(path, format!("cannot read: {e}"), TableFault::of_io(&e)))?;
        let (_, header) = SafeTensors::read_metadata(&bytes).map_err(|e| {
            let why = format!("not a safetensors file (truncated or corrupted?): {e}");
            TableFileError::new(path, why, TableFault::Damaged)
        })?;
        Ok(header.metadata().as_ref().and_then(|m| m.get(KEY_TRAINING).cloned()))
    }
}
