//! The network, its heads, checkpoints and one training step.

use burn::optim::{AdamWConfig, GradientsParams};
use burn::tensor::{Int, Tensor, TensorData};
use rand::SeedableRng;
use stratego_engine::{Layout, Ruleset, NUM_ACTIONS};
use stratego_model::loss::loss_terms;
use stratego_model::{
    device, infer, load, read_meta, save, CheckpointMeta, ModelConfig, Observed, StrategoNet, PRESETS,
};

/// A batch from real games: planes, legal masks and belief targets.
fn batch(layout: Layout, games: usize, seed: u64) -> (Vec<f32>, Vec<bool>, Vec<i32>) {
    let observed = Observed::after_random_plies(Ruleset::classic(), games, seed, 30, layout);
    (observed.planes, observed.legal, observed.belief_targets)
}

#[test]
fn every_preset_counts_its_parameters_and_small_ones_give_the_right_shapes() {
    let dev = device("cpu").unwrap();
    for name in PRESETS {
        let config = ModelConfig::preset(name).unwrap();
        for layout in Layout::ALL {
            let net = StrategoNet::new(&config, layout, &dev);
            use burn::module::Module;
            assert_eq!(net.num_params(), config.parameter_count(layout.channels()), "{name} {layout}");
        }
    }
    let ataraxos = ModelConfig::preset("ataraxos").unwrap().parameter_count(Layout::Full.channels());
    assert!((14_000_000..16_500_000).contains(&ataraxos), "about 15M parameters: {ataraxos}");
    for name in ["tiny", "small"] {
        let config = ModelConfig::preset(name).unwrap();
        for layout in Layout::ALL {
            let net = StrategoNet::new(&config, layout, &dev);
            let (planes, legal, _) = batch(layout, 3, 1);
            let out = infer(&net, layout, &planes, &legal, &dev).unwrap();
            assert_eq!((out.policy.len(), out.outcome.len(), out.value.len()), (3 * 1800, 9, 3));
            assert_eq!(out.belief.len(), 3 * 100 * 12);
            for i in 0..3 {
                let p = out.policy_of(i);
                // Masked actions get exactly zero probability; the rest sum to 1.
                for a in 0..NUM_ACTIONS {
                    assert_eq!(p[a] > 0.0, legal[i * NUM_ACTIONS + a], "{name} {layout} action {a}");
                }
                assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                assert!((out.value[i]).abs() <= 1.0);
            }
        }
    }
    assert!(ModelConfig::preset("huge").is_err());
    assert!(device("tpu").is_err());
}

#[test]
fn checkpoints_round_trip_and_refuse_mismatches() {
    let dev = device("cpu").unwrap();
    let dir = stratego_testkit::scratch_dir("model-ckpt");
    let path = dir.join("net.safetensors");
    let config = ModelConfig::preset("tiny").unwrap();
    let layout = Layout::Compact;
    let rules = Ruleset::classic();
    let net = StrategoNet::new(&config, layout, &dev);
    let meta = CheckpointMeta { config: config.clone(), layout, rules, step: 7 };
    save(&net, &meta, &path).unwrap();
    assert!(!dir.join("net.safetensors.partial").exists(), "no temporary file is left");
    assert_eq!(read_meta(&path).unwrap(), meta);
    // A symlink planted under the temporary name is not written through.
    let bystander = stratego_testkit::planted_link(&dir, "net.safetensors.partial", "untouched");
    save(&net, &meta, &path).unwrap();
    assert_eq!(std::fs::read_to_string(&bystander).unwrap(), "untouched");
    // The same network makes the same file, byte for byte, every time.
    let first = std::fs::read(&path).unwrap();
    for _ in 0..4 {
        save(&net, &meta, &path).unwrap();
        assert!(std::fs::read(&path).unwrap() == first, "a checkpoint's bytes changed between identical saves");
    }

    let (planes, legal, _) = batch(layout, 2, 3);
    let before = infer(&net, layout, &planes, &legal, &dev).unwrap();
    let (loaded, loaded_meta) = load(&path, Some(layout), Some(&rules), &dev).unwrap();
    assert_eq!(loaded_meta.step, 7);
    assert_eq!(infer(&loaded, layout, &planes, &legal, &dev).unwrap(), before, "identical outputs");

    let err = load(&path, Some(Layout::Full), None, &dev).unwrap_err().to_string();
    assert!(err.contains("compact") && err.contains("full"), "{err}");
    let other = Ruleset { chase_rule: false, ..rules };
    let err = load(&path, None, Some(&other), &dev).unwrap_err().to_string();
    assert!(err.contains(&rules.id().to_string()) && err.contains(&other.id().to_string()), "{err}");

    let bytes = std::fs::read(&path).unwrap();
    let truncated = dir.join("truncated.safetensors");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    assert!(load(&truncated, None, None, &dev).is_err());
    std::fs::write(&truncated, b"not a checkpoint").unwrap();
    assert!(read_meta(&truncated).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_optimizer_step_lowers_the_loss_on_a_fixed_batch() {
    let dev = device("cpu").unwrap().autodiff();
    dev.seed(7);
    let layout = Layout::Compact;
    let mut net = StrategoNet::tiny(layout, &dev);
    let games = 8;
    let observed = Observed::after_random_plies(Ruleset::classic(), games, 5, 30, layout);
    let targets = &observed.belief_targets;
    // Target: uniform over legal moves; outcome: alternate win / loss.
    let policy_target = observed.uniform_policy();
    let outcomes: Vec<i64> = (0..games).map(|i| if i % 2 == 0 { 2 } else { 0 }).collect();
    let loss_of = |net: &StrategoNet| {
        let (x, mask) = observed.tensors(&dev);
        let out = net.forward(x, mask);
        let target = Tensor::<2>::from_data(TensorData::new(policy_target.clone(), [games, NUM_ACTIONS]), &dev);
        let outcome = Tensor::<1, Int>::from_data(TensorData::new(outcomes.clone(), [games]), &dev);
        loss_terms(&out, target, outcome, targets).total(0.5)
    };
    let mut optim = AdamWConfig::new().init();
    let first = loss_of(&net);
    let before = first.clone().into_scalar::<f32>();
    assert!(before.is_finite());
    let grads = GradientsParams::from_grads(first.backward(), &net);
    // Adam moves every weight by about the learning rate on its first step, so 1e-2 can overshoot
    // on an unlucky initialisation (CI saw 5.24 -> 5.40); 1e-3 is a step small enough to descend.
    net = optim.step(1e-3, net, grads);
    let after = loss_of(&net).into_scalar::<f32>();
    assert!(after < before, "loss {before} -> {after}");
}

#[test]
fn actions_are_chosen_by_argmax_or_by_tempered_sampling_among_legal_ones() {
    use stratego_model::choose_action;
    let mut probs = vec![0.0f32; NUM_ACTIONS];
    probs[10] = 0.2;
    probs[20] = 0.5;
    probs[30] = 0.3;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    assert_eq!(choose_action(&probs, 0.0, &mut rng), Some(20));
    let mut counts = [0usize; 3];
    for _ in 0..30_000 {
        match choose_action(&probs, 1.0, &mut rng) {
            Some(10) => counts[0] += 1,
            Some(20) => counts[1] += 1,
            Some(30) => counts[2] += 1,
            other => panic!("an illegal action {other:?}"),
        }
    }
    for (n, p) in counts.iter().zip([0.2, 0.5, 0.3]) {
        assert!((*n as f64 / 30_000.0 - p).abs() < 0.015, "{counts:?}");
    }
    // A low temperature sharpens towards the argmax.
    let sharp = (0..2000).filter(|_| choose_action(&probs, 0.1, &mut rng) == Some(20)).count();
    assert!(sharp > 1900, "{sharp}");
    assert_eq!(choose_action(&vec![0.0; NUM_ACTIONS], 1.0, &mut rng), None);
    // A diverged network's NaN policy chooses nothing (the actor and the
    // network player turn that into an error, not a panic).
    for temperature in [0.0, 1.0] {
        assert_eq!(choose_action(&vec![f32::NAN; NUM_ACTIONS], temperature, &mut rng), None);
    }
}

/// burn draws most parameters lazily, at their first use, from the
/// backend's one generator; a network built that way would depend on what
/// else drew from it (another thread, another test) before its first
/// forward pass. `StrategoNet::new` draws every parameter at construction.
#[test]
fn a_new_network_has_drawn_all_its_parameters() {
    use burn::module::{Module, ModuleVisitor, Param};
    struct Lazy(usize, usize);
    impl ModuleVisitor for Lazy {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            self.0 += 1;
            self.1 += usize::from(!param.is_initialized());
        }
    }
    let dev = device("cpu").unwrap();
    for layout in Layout::ALL {
        let mut lazy = Lazy(0, 0);
        StrategoNet::tiny(layout, &dev).visit(&mut lazy);
        assert!(lazy.0 > 10, "{} parameters visited", lazy.0);
        assert_eq!(lazy.1, 0, "{} of {} parameters not yet drawn ({layout})", lazy.1, lazy.0);
    }
}
