//! A checkpoint restores training exactly: two optimizer steps in a row give
//! the same weights as one step, a save, a restore and a second step. This
//! fails if the optimizer's moments do not find their parameters again (burn
//! keys them by parameter id, which safetensors files do not keep).

use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams};
use burn::tensor::{Bool, Int, Tensor, TensorData};
use stratego_engine::{Layout, Ruleset, VecEnv, NUM_ACTIONS};
use stratego_learner::run::{restore, Counters, RunDir};
use stratego_learner::TrainConfig;
use stratego_model::{device, loss_terms, CheckpointMeta, ModelConfig, StrategoNet};

#[test]
fn a_restored_checkpoint_continues_exactly() {
    let plain = device("cpu").unwrap();
    let dev = plain.clone().autodiff();
    dev.seed(3);
    let layout = Layout::Compact;
    let config = ModelConfig::preset("tiny").unwrap();
    let games = 4;
    let env = VecEnv::new(Ruleset::classic(), games, 9).unwrap();
    let mut planes = vec![0.0; games * layout.size()];
    let mut legal = vec![false; games * NUM_ACTIONS];
    let mut belief = vec![0; games * 100];
    env.observe(layout, &mut planes).unwrap();
    env.legal_mask(&mut legal).unwrap();
    env.belief_targets(&mut belief).unwrap();
    let uniform: Vec<f32> = legal
        .chunks(NUM_ACTIONS)
        .flat_map(|row| {
            let n = row.iter().filter(|&&l| l).count() as f32;
            row.iter().map(move |&l| if l { 1.0 / n } else { 0.0 })
        })
        .collect();
    let step = |net: StrategoNet, optim: &mut burn::optim::ModuleOptimizer| {
        let x = Tensor::<3>::from_data(TensorData::new(planes.clone(), [games, layout.channels(), 100]), &dev);
        let mask = Tensor::<2, Bool>::from_data(TensorData::new(legal.clone(), [games, NUM_ACTIONS]), &dev);
        let out = net.forward(x, mask);
        let target = Tensor::<2>::from_data(TensorData::new(uniform.clone(), [games, NUM_ACTIONS]), &dev);
        let outcome = Tensor::<1, Int>::from_data(TensorData::new(vec![2i64, 0, 1, 2], [games]), &dev);
        let loss = loss_terms(&out, target, outcome, &belief).total(1.0);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        optim.step(1e-3, net, grads)
    };
    let weights = |net: &StrategoNet| {
        let x = Tensor::<3>::from_data(TensorData::new(planes.clone(), [games, layout.channels(), 100]), &plain);
        let mask = Tensor::<2, Bool>::from_data(TensorData::new(legal.clone(), [games, NUM_ACTIONS]), &plain);
        net.valid().forward(x, mask).value_logits.into_data().try_to_vec::<f32>().unwrap()
    };

    let start = StrategoNet::new(&config, layout, &dev);
    let mut optim = AdamWConfig::new().init();
    let once = step(start, &mut optim);

    // Straight on.
    let mut straight_optim = AdamWConfig::new().init().load_record(optim.to_record());
    let straight = step(once.clone(), &mut straight_optim);

    // Through a checkpoint.
    let root = stratego_testkit::scratch_path("learner-resume");
    let run = RunDir::create(&root, &TrainConfig::default()).unwrap();
    let meta = CheckpointMeta { config: config.clone(), layout, rules: Ruleset::classic(), step: 1 };
    let counters = Counters { iteration: 1, plies: 10, games: 1, samples: 4, seconds: 1.0 };
    let dir = run.save(&counters, &meta, &once, &once.valid(), &optim, 2).unwrap();
    let restored = restore(&dir, &meta, &dev, &plain, AdamWConfig::new().init()).unwrap();
    assert_eq!(restored.counters, counters);
    let mut restored_optim = restored.optimizer;
    let resumed = step(restored.net, &mut restored_optim);

    let (a, b) = (weights(&straight), weights(&resumed));
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-6), "{a:?} vs {b:?}");
    // A fresh optimizer (moments lost) takes a different second step.
    let mut fresh = AdamWConfig::new().init();
    let lost = weights(&step(once, &mut fresh));
    assert!(a.iter().zip(&lost).any(|(x, y)| (x - y).abs() > 1e-6), "the test cannot tell lost moments apart");
    std::fs::remove_dir_all(&root).unwrap();
}
