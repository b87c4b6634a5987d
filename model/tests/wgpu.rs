//! One forward pass on the wgpu backend agrees with the CPU backend
//! (run by .ci/wgpu-check; needs `--features wgpu`).
#![cfg(feature = "wgpu")]

use stratego_engine::{Layout, Ruleset, VecEnv, NUM_ACTIONS};
use stratego_model::{device, infer, load, save, CheckpointMeta, ModelConfig, StrategoNet};

#[test]
fn wgpu_forward_agrees_with_the_cpu() {
    let cpu = device("cpu").unwrap();
    let gpu = device("wgpu").expect("a wgpu adapter (install mesa-vulkan-drivers for lavapipe)");
    let layout = Layout::Compact;
    let config = ModelConfig::preset("tiny").unwrap();
    let path = stratego_testkit::scratch_path("wgpu.safetensors");
    let net = StrategoNet::new(&config, layout, &cpu);
    save(&net, &CheckpointMeta { config, layout, rules: Ruleset::classic(), step: 0 }, &path).unwrap();
    let (on_gpu, _) = load(&path, Some(layout), None, &gpu).unwrap();
    let env = VecEnv::new(Ruleset::classic(), 4, 9).unwrap();
    let mut planes = vec![0.0; 4 * layout.size()];
    let mut legal = vec![false; 4 * NUM_ACTIONS];
    env.observe(layout, &mut planes).unwrap();
    env.legal_mask(&mut legal).unwrap();
    let a = infer(&net, layout, &planes, &legal, &cpu).unwrap();
    let b = infer(&on_gpu, layout, &planes, &legal, &gpu).unwrap();
    let max_diff = a.policy.iter().zip(&b.policy).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert!(max_diff < 1e-4, "policy differs by {max_diff}");
    let value_diff = a.value.iter().zip(&b.value).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert!(value_diff < 1e-4, "value differs by {value_diff}");
    std::fs::remove_file(&path).unwrap();
}
