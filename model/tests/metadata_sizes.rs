//! A checkpoint's metadata cannot claim a network its file does not hold:
//! every size is bounded by a stated maximum (`MAX_SIZES`) and by the
//! tensors and bytes of the file, checked in overflow-free arithmetic
//! before anything is allocated for it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use stratego_engine::{Layout, Ruleset};
use stratego_model::config::MAX_SIZES;
use stratego_model::{device, load, read_meta, save, CheckpointMeta, ModelConfig, StrategoNet};

fn temp_dir(name: &str) -> PathBuf {
    let dir = stratego_testkit::scratch_dir(&format!("model-{name}"));
    dir
}

/// A copy of the checkpoint at `from` whose model config has `sizes`
/// (JSON fields) in place of its own.
fn with_sizes(from: &Path, to: &Path, sizes: &str) {
    let bytes = std::fs::read(from).unwrap();
    let tensors = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let mut meta: HashMap<String, String> = header.metadata().clone().unwrap();
    let mut config: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&meta["stratego.model"]).unwrap();
    let edits: serde_json::Map<String, serde_json::Value> = serde_json::from_str(sizes).unwrap();
    config.extend(edits);
    meta.insert("stratego.model".into(), serde_json::Value::Object(config).to_string());
    std::fs::write(to, safetensors::serialize(tensors.tensors(), Some(meta)).unwrap()).unwrap();
}

#[test]
fn sizes_in_checkpoint_metadata_are_bounded_by_the_file_and_a_maximum() {
    let dir = temp_dir("metadata-sizes");
    let good = dir.join("tiny.safetensors");
    let config = ModelConfig::preset("tiny").unwrap();
    let cpu = device("cpu").unwrap();
    let net = StrategoNet::new(&config, Layout::Compact, &cpu);
    save(&net, &CheckpointMeta { config, layout: Layout::Compact, rules: Ruleset::classic(), step: 0 }, &good).unwrap();
    let cases = [
        // Past the stated maximum: a trillion layers in a 100 KB file.
        (r#"{"layers": 1000000000000}"#, "layers 1000000000000 is past the largest supported, 1024"),
        // Sizes whose products wrap around a 64-bit count.
        (r#"{"d_model": 4294967296, "layers": 4294967296, "ffn": 4294967296, "heads": 1}"#, "past the largest"),
        // Within the maximum, but more tensors than the file holds.
        (r#"{"layers": 1000}"#, "needs 16014 tensors, the file holds 46"),
        // Within the maximum and the tensor count, but not the file's bytes.
        (r#"{"d_model": 16384, "heads": 1, "ffn": 65536}"#, "weights of 4 bytes, the file has"),
    ];
    for (sizes, why) in cases {
        let path = dir.join("edited.safetensors");
        with_sizes(&good, &path, sizes);
        let err = read_meta(&path).unwrap_err().to_string();
        assert!(err.contains(why) && !err.contains('\n'), "{sizes}: {err}");
        let err = load(&path, None, None, &cpu).map(drop).unwrap_err().to_string();
        assert!(err.contains(why), "{sizes}: {err}");
    }
    // The count itself never overflows, whatever the sizes.
    let huge = ModelConfig { d_model: 1 << 32, layers: 1 << 32, heads: 1, ffn: 1 << 32, dropout: 0.0 };
    assert_eq!(huge.checked_parameter_count(58), None);
    assert_eq!(huge.parameter_count(58), usize::MAX);
    assert!(huge.validate().is_err());
    // Every preset is within the maximum.
    for name in stratego_model::PRESETS {
        ModelConfig::preset(name).unwrap().validate().unwrap();
    }
    assert_eq!(MAX_SIZES.len(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}
