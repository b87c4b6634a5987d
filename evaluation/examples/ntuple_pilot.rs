// TEMPORARY pilot harness (not to be committed).
use std::sync::Arc;
use std::time::Instant;
use stratego_baselines::ntuple::*;
use stratego_engine::Ruleset;
use stratego_evaluation::arena::{play_match, MatchConfig};
use stratego_evaluation::report::MatchSummary;
use stratego_players::setup_policy::SetupPolicy;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let games: u64 = a[1].parse().unwrap();
    let alpha: f64 = a[2].parse().unwrap();
    let lambda: f64 = a[3].parse().unwrap();
    let epsilon: f64 = a[4].parse().unwrap();
    let setups = match a[5].as_str() {
        "random" => TrainSetups::Random,
        "handcrafted" => TrainSetups::Handcrafted,
        _ => TrainSetups::Mixed,
    };
    let layout = a[6].clone();
    let every: u64 = a[7].parse().unwrap();
    let tc = a.get(8).is_some_and(|s| s == "tc");
    let alpha_final: Option<f64> = a.get(9).map(|s| s.parse().unwrap());
    let config = TrainConfig {
        rules: Ruleset::classic(),
        seed: 1,
        games,
        layout,
        setups,
        td: TdConfig {
            alpha,
            alpha_final,
            lambda,
            lambda_final: None,
            epsilon,
            epsilon_final: None,
            temporal_coherence: tc,
            draw_value: std::env::var("DRAW").map_or(0.0, |v| v.parse().unwrap()),
        },
    };
    let mut trainer = Trainer::new(config.clone(), config.fresh_net().unwrap()).unwrap();
    let start = Instant::now();
    let (mut err, mut plies, mut n) = (0.0, 0.0, 0.0);
    let mut reasons = std::collections::BTreeMap::new();
    train(&mut trainer, |t, s| {
        err += s.td_error;
        *reasons.entry(format!("{:?}", s.reason)).or_insert(0) += 1;
        plies += s.plies as f64;
        n += 1.0;
        let g = t.games_played();
        if g % every == 0 {
            let mut line =
                format!("{g} games {:.0}s td {:.4} plies {:.0}", start.elapsed().as_secs_f64(), err / n, plies / n);
            err = 0.0;
            plies = 0.0;
            n = 0.0;
            line += &format!(" {:?}", reasons);
            reasons.clear();
            for setup in [SetupPolicy::Random, SetupPolicy::Handcrafted] {
                let ours = NTupleFactory(NTuplePlayer {
                    net: Arc::new(t.net().clone()),
                    name: "nt".into(),
                    setup,
                    press: Default::default(),
                });
                let greedy = stratego_baselines::factory_of(&format!("greedy:setup={setup}")).unwrap();
                let mc = MatchConfig::new(Ruleset::classic(), 200, 77);
                let r = play_match(&ours, greedy.as_ref(), &mc, &|_| {}).unwrap();
                let s = MatchSummary::of(&r);
                line += &format!(
                    " | {setup}: {:.3} ({}/{}/{}) len {:.0}",
                    s.score,
                    s.a_wins,
                    s.draws,
                    s.a_losses,
                    r.games.iter().map(|g| g.plies as f64).sum::<f64>() / r.games.len() as f64
                );
            }
            println!("{line}");
            if let Some(p) = a.get(10) {
                t.net().save(std::path::Path::new(p), None).unwrap();
            }
        }
        Ok::<(), stratego_baselines::ntuple::NTupleTrainError>(())
    })
    .unwrap();
}
