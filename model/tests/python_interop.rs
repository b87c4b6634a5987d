//! A checkpoint written by Rust is read by Python (safetensors + numpy) and
//! holds exactly the documented tensor names and shapes.

use std::process::Command;

use stratego_engine::{Layout, Ruleset};
use stratego_model::checkpoint::tensor_shapes;
use stratego_model::{device, save, CheckpointMeta, ModelConfig, StrategoNet};

#[test]
fn python_reads_the_documented_tensors() {
    let dir = stratego_testkit::scratch_dir("model-py");
    for (preset, layout) in [("tiny", Layout::Compact), ("small", Layout::Full)] {
        let config = ModelConfig::preset(preset).unwrap();
        let net = StrategoNet::new(&config, layout, &device("cpu").unwrap());
        let path = dir.join(format!("{preset}.safetensors"));
        let rules = Ruleset::classic();
        save(&net, &CheckpointMeta { config: config.clone(), layout, rules, step: 3 }, &path).unwrap();
        let tensors: Vec<String> = tensor_shapes(&config, layout.channels())
            .iter()
            .map(|(name, shape)| format!("[\"{name}\", {shape:?}]"))
            .collect();
        let expected = format!(
            "{{\"metadata\": {{\"stratego.format\": \"{}\", \"stratego.layout\": \"{layout}\", \"stratego.layout_id\": \"{}\", \"stratego.ruleset_id\": \"{}\", \"stratego.step\": \"3\"}}, \"tensors\": [{}]}}",
            stratego_model::checkpoint::FORMAT,
            layout.identity(),
            rules.id(),
            tensors.join(", ")
        );
        let expected_path = dir.join(format!("{preset}.json"));
        std::fs::write(&expected_path, expected).unwrap();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/check_checkpoint.py");
        let out = Command::new("python3").arg(script).arg(&path).arg(&expected_path).output().expect("python3 runs");
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
