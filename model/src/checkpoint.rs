//! Checkpoints: the weights in safetensors, with metadata in the file's
//! header: format version, model config, observation layout (its name and
//! its identity, `compact-v1:e9f9c7b6`: version and hash of the plane
//! table), the engine's ruleset (canonical text and id) and the training step.
//!
//! Loading checks every one of these before it touches the weights and
//! refuses a mismatch with a message naming both sides. Writes go to a
//! temporary file that is renamed into place, so a crash never leaves a
//! half-written checkpoint under the real name.
//!
//! Tensor names follow the module's field paths (stable; docs/MODEL.md):
//! `embed.weight [C, d]`, `position [92, d]`, `value_token [1, d]`,
//! `encoder.layers.N.{mha.{query,key,value,output},pwff.{linear_inner,linear_outer}}.{weight,bias}`,
//! `encoder.layers.N.{norm_1,norm_2}.{gamma,beta}`, `final_norm.{gamma,beta}`,
//! `policy_query.*`, `policy_key.*`, `value_head.* [d, 3]`, `belief_head.* [d, 12]`.
//! Linear weights are stored `[in, out]` (burn's layout, the transpose of PyTorch's).

use std::collections::HashMap;
use std::path::Path;

use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::Device;
use stratego_engine::obs::LayoutId;
use stratego_engine::{Layout, Ruleset};

use crate::config::ModelConfig;
use crate::error::ModelError;
use crate::network::StrategoNet;

/// The version of the checkpoint format this code writes and reads.
pub const FORMAT: &str = "stratego-checkpoint-v1";

const KEY_FORMAT: &str = "stratego.format";
const KEY_MODEL: &str = "stratego.model";
const KEY_LAYOUT: &str = "stratego.layout";
const KEY_LAYOUT_ID: &str = "stratego.layout_id";
const KEY_RULES: &str = "stratego.ruleset";
const KEY_RULES_ID: &str = "stratego.ruleset_id";
const KEY_STEP: &str = "stratego.step";

/// The layout identities assumed for a checkpoint without
/// `stratego.layout_id`: such a checkpoint was written before identities
/// were stored, by an engine whose layouts were these (version 1). It is
/// read as written for them, so it loads while this engine's layout is
/// still version 1 and is refused, naming both identities, once the layout
/// changes.
pub const LAYOUT_IDS_BEFORE_IDS: [(&str, &str); 2] = [("compact", "compact-v1:e9f9c7b6"), ("full", "full-v1:24b8c193")];

/// What a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointMeta {
    pub config: ModelConfig,
    pub layout: Layout,
    pub rules: Ruleset,
    pub step: u64,
}

fn error(path: &Path, why: impl Into<String>) -> ModelError {
    ModelError::Checkpoint { path: path.display().to_string(), why: why.into() }
}

/// Writes `net` and its metadata to `path` atomically.
pub fn save(net: &StrategoNet, meta: &CheckpointMeta, path: &Path) -> Result<(), ModelError> {
    let bytes = serialize(net, meta, path)?;
    stratego_support::files::write_atomically(path, &bytes).map_err(|e| error(path, format!("cannot write: {e}")))
}

/// The bytes `save` writes: a checkpoint to send to another process (a
/// self-play worker of a cluster), loaded there with [`load_bytes`].
pub fn to_bytes(net: &StrategoNet, meta: &CheckpointMeta) -> Result<Vec<u8>, ModelError> {
    serialize(net, meta, Path::new("(checkpoint in memory)"))
}

fn serialize(net: &StrategoNet, meta: &CheckpointMeta, path: &Path) -> Result<Vec<u8>, ModelError> {
    if net.layout() != meta.layout {
        return Err(error(
            path,
            format!("the network reads {} observations but the metadata says {}", net.layout(), meta.layout),
        ));
    }
    let config = serde_json::to_string(&meta.config).map_err(|e| error(path, e.to_string()))?;
    let mut store = SafetensorsStore::from_bytes(None)
        .metadata(KEY_FORMAT, FORMAT)
        .metadata(KEY_MODEL, config)
        .metadata(KEY_LAYOUT, meta.layout.name())
        .metadata(KEY_LAYOUT_ID, meta.layout.identity().to_string())
        .metadata(KEY_RULES, meta.rules.canonical())
        .metadata(KEY_RULES_ID, meta.rules.id().to_string())
        .metadata(KEY_STEP, meta.step.to_string());
    net.save_into(&mut store).map_err(|e| error(path, format!("cannot write: {e}")))?;
    let mut bytes = store.get_bytes().map_err(|e| error(path, format!("cannot write: {e}")))?;
    // The same weights make the same file: burn writes the metadata in a
    // HashMap's order, which differs from one write to the next.
    stratego_support::files::sort_safetensors_metadata(&mut bytes);
    Ok(bytes)
}

/// Reads and checks a checkpoint's metadata without loading its weights.
pub fn read_meta(path: &Path) -> Result<CheckpointMeta, ModelError> {
    meta_of(path, &read(path)?)
}

fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    stratego_support::files::read_data(path).map_err(|e| error(path, format!("cannot read: {e}")))
}

/// `read_meta` of the file's bytes, already read.
fn meta_of(path: &Path, bytes: &[u8]) -> Result<CheckpointMeta, ModelError> {
    let (_, header) = safetensors::SafeTensors::read_metadata(bytes)
        .map_err(|e| error(path, format!("not a safetensors file (truncated or corrupted?): {e}")))?;
    let empty = HashMap::new();
    let meta = header.metadata().as_ref().unwrap_or(&empty);
    let field = |key: &str| {
        meta.get(key).map(String::as_str).ok_or_else(|| error(path, format!("metadata `{key}` is missing")))
    };
    let format = field(KEY_FORMAT)?;
    if format != FORMAT {
        return Err(error(path, format!("format `{format}` is not the supported `{FORMAT}`")));
    }
    let config: ModelConfig =
        serde_json::from_str(field(KEY_MODEL)?).map_err(|e| error(path, format!("bad model config: {e}")))?;
    config.validate().map_err(|e| error(path, e.to_string()))?;
    let layout = Layout::from_name(field(KEY_LAYOUT)?).map_err(|e| error(path, e.to_string()))?;
    check_sizes_held(path, &config, layout, header.tensors().len(), bytes.len())?;
    check_layout_id(path, layout, meta.get(KEY_LAYOUT_ID).map(String::as_str))?;
    let rules: Ruleset =
        field(KEY_RULES)?.parse().map_err(|e: stratego_engine::RulesError| error(path, e.to_string()))?;
    let id = field(KEY_RULES_ID)?;
    if id != rules.id().to_string() {
        return Err(error(path, format!("ruleset id {id} does not match its ruleset text (id {})", rules.id())));
    }
    let step = field(KEY_STEP)?.parse().map_err(|_| error(path, "bad training step"))?;
    Ok(CheckpointMeta { config, layout, rules, step })
}

/// Refuses sizes in the metadata that the file cannot hold: more tensors
/// than it has, or more parameters than its bytes hold four-byte weights
/// for. Checked before anything is allocated for the config, so a small
/// file that claims a huge network is one error, not gigabytes of
/// memory.
fn check_sizes_held(
    path: &Path,
    config: &ModelConfig,
    layout: Layout,
    tensors: usize,
    bytes: usize,
) -> Result<(), ModelError> {
    let sizes = format!("d_model {}, layers {}, ffn {}", config.d_model, config.layers, config.ffn);
    let too_large = || error(path, format!("its model config ({sizes}) is too large to count"));
    let needed = config.tensor_count().ok_or_else(too_large)?;
    if needed > tensors {
        return Err(error(
            path,
            format!("its model config ({sizes}) needs {needed} tensors, the file holds {tensors}"),
        ));
    }
    let parameters = config.checked_parameter_count(layout.channels()).ok_or_else(too_large)?;
    if parameters.checked_mul(4).is_none_or(|b| b > bytes) {
        return Err(error(
            path,
            format!("its model config ({sizes}) needs {parameters} weights of 4 bytes, the file has {bytes} bytes"),
        ));
    }
    Ok(())
}

/// Refuses a checkpoint whose layout identity (`stored`, or the assumed
/// `LAYOUT_IDS_BEFORE_IDS` one if it has none) is not this engine's
/// identity of `layout`: its network would read planes that no longer mean
/// what it was trained on.
fn check_layout_id(path: &Path, layout: Layout, stored: Option<&str>) -> Result<(), ModelError> {
    let current = layout.identity();
    let (id, assumed) = match stored {
        Some(text) => {
            (text.parse::<LayoutId>().map_err(|e| error(path, format!("metadata `{KEY_LAYOUT_ID}`: {e}")))?, "")
        }
        None => {
            let (_, id) = LAYOUT_IDS_BEFORE_IDS
                .into_iter()
                .find(|(name, _)| *name == layout.name())
                .expect("every layout has an identity from before checkpoints stored them");
            (id.parse::<LayoutId>().expect("the pinned identities parse"), " (assumed: it has no `stratego.layout_id`)")
        }
    };
    if id.name != layout.name() {
        return Err(error(
            path,
            format!(
                "metadata `{KEY_LAYOUT_ID}` {id} is not an identity of the `{layout}` layout that `{KEY_LAYOUT}` names"
            ),
        ));
    }
    if id != current {
        return Err(error(
            path,
            format!(
                "layout {id}{assumed} does not match this engine's {current}: its network was trained on other planes (retrain, or use an engine with that layout)"
            ),
        ));
    }
    Ok(())
}

/// Checks the file's tensors before a network is built for them: exactly
/// the tensors of its model config with their shapes (so a corrupted
/// header cannot make the loader allocate a network the file does not
/// hold), and no NaN or infinite weight (such a network gives no move a
/// probability; a diverged run's file fails here, with its name, not at
/// the first move of a match).
fn check_tensors(path: &Path, bytes: &[u8], meta: &CheckpointMeta) -> Result<(), ModelError> {
    let file = safetensors::SafeTensors::deserialize(bytes)
        .map_err(|e| error(path, format!("not a safetensors file (truncated or corrupted?): {e}")))?;
    let expected = tensor_shapes(&meta.config, meta.layout.channels());
    if file.len() != expected.len() {
        return Err(error(path, format!("holds {} tensors, its model config has {}", file.len(), expected.len())));
    }
    for (name, shape) in &expected {
        let tensor = file.tensor(name).map_err(|_| error(path, format!("tensor `{name}` is missing")))?;
        if tensor.dtype() != safetensors::Dtype::F32 || tensor.shape() != shape.as_slice() {
            return Err(error(
                path,
                format!(
                    "tensor `{name}` is {:?} {:?}, its model config needs F32 {shape:?}",
                    tensor.dtype(),
                    tensor.shape()
                ),
            ));
        }
        let bad = tensor.data().chunks_exact(4).position(|b| !f32::from_le_bytes([b[0], b[1], b[2], b[3]]).is_finite());
        if let Some(i) = bad {
            return Err(error(
                path,
                format!("tensor `{name}` holds a non-finite weight at index {i} (a diverged run?)"),
            ));
        }
    }
    Ok(())
}

/// Loads a checkpoint onto `device`, refusing one written for another
/// observation layout or ruleset than the expected ones (when given).
pub fn load(
    path: &Path,
    expected_layout: Option<Layout>,
    expected_rules: Option<&Ruleset>,
    device: &Device,
) -> Result<(StrategoNet, CheckpointMeta), ModelError> {
    let bytes = read(path)?;
    checked_load(path, bytes, expected_layout, expected_rules, device)
}

/// [`load`] of a checkpoint's bytes (from [`to_bytes`]), with the same
/// checks.
pub fn load_bytes(
    bytes: Vec<u8>,
    expected_layout: Option<Layout>,
    expected_rules: Option<&Ruleset>,
    device: &Device,
) -> Result<(StrategoNet, CheckpointMeta), ModelError> {
    checked_load(Path::new("(checkpoint in memory)"), bytes, expected_layout, expected_rules, device)
}

fn checked_load(
    path: &Path,
    bytes: Vec<u8>,
    expected_layout: Option<Layout>,
    expected_rules: Option<&Ruleset>,
    device: &Device,
) -> Result<(StrategoNet, CheckpointMeta), ModelError> {
    let meta = meta_of(path, &bytes)?;
    if let Some(layout) = expected_layout.filter(|&l| l != meta.layout) {
        return Err(error(path, format!("written for the {} observation layout, expected {layout}", meta.layout)));
    }
    if let Some(rules) = expected_rules {
        rules.expect_same(&meta.rules).map_err(|e| error(path, e.to_string()))?;
    }
    check_tensors(path, &bytes, &meta)?;
    let mut net = StrategoNet::lazy(&meta.config, meta.layout, device);
    // The bytes checked above, not the file read again: what is loaded is
    // what was checked.
    let mut store = SafetensorsStore::from_bytes(Some(bytes));
    let applied = net.load_from(&mut store).map_err(|e| error(path, format!("cannot load the weights: {e}")))?;
    if !applied.errors.is_empty() || !applied.missing.is_empty() {
        return Err(error(path, format!("weights do not fit the model: {applied:?}")));
    }
    Ok((net, meta))
}

/// Every tensor a checkpoint holds, with its shape: the documented, stable
/// names (burn derives them from the module's field paths; a test checks
/// that a written file holds exactly these, from Python too).
pub fn tensor_shapes(config: &ModelConfig, channels: usize) -> Vec<(String, Vec<usize>)> {
    let (d, f) = (config.d_model, config.ffn);
    let mut shapes = vec![
        ("embed.weight".to_string(), vec![channels, d]),
        ("embed.bias".to_string(), vec![d]),
        ("position".to_string(), vec![crate::tokens::SQUARE_TOKENS, d]),
        ("value_token".to_string(), vec![1, d]),
    ];
    for layer in 0..config.layers {
        let p = format!("encoder.layers.{layer}");
        for name in ["query", "key", "value", "output"] {
            shapes.push((format!("{p}.mha.{name}.weight"), vec![d, d]));
            shapes.push((format!("{p}.mha.{name}.bias"), vec![d]));
        }
        shapes.push((format!("{p}.pwff.linear_inner.weight"), vec![d, f]));
        shapes.push((format!("{p}.pwff.linear_inner.bias"), vec![f]));
        shapes.push((format!("{p}.pwff.linear_outer.weight"), vec![f, d]));
        shapes.push((format!("{p}.pwff.linear_outer.bias"), vec![d]));
        for norm in ["norm_1", "norm_2"] {
            shapes.push((format!("{p}.{norm}.gamma"), vec![d]));
            shapes.push((format!("{p}.{norm}.beta"), vec![d]));
        }
    }
    shapes.push(("final_norm.gamma".into(), vec![d]));
    shapes.push(("final_norm.beta".into(), vec![d]));
    for head in ["policy_query", "policy_key"] {
        shapes.push((format!("{head}.weight"), vec![d, d]));
        shapes.push((format!("{head}.bias"), vec![d]));
    }
    shapes.push(("value_head.weight".into(), vec![d, 3]));
    shapes.push(("value_head.bias".into(), vec![3]));
    shapes.push(("belief_head.weight".into(), vec![d, crate::tokens::TYPES]));
    shapes.push(("belief_head.bias".into(), vec![crate::tokens::TYPES]));
    shapes
}
