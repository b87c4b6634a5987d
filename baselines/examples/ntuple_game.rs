// TEMPORARY diagnostic (not to be committed).
use rand::SeedableRng;
use std::sync::Arc;
use stratego_baselines::ntuple::*;
use stratego_engine::*;
use stratego_players::player::{AgentRng, Player};
use stratego_players::setup_policy::SetupPolicy;
use stratego_players::view::{InfoView, PublicPly};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let net = Arc::new(NTupleNet::load(std::path::Path::new(&a[1]), None).unwrap());
    let seed: u64 = a[2].parse().unwrap();
    let mut rng = AgentRng::seed_from_u64(seed);
    let mut us =
        NTuplePlayer { net: net.clone(), name: "nt".into(), setup: SetupPolicy::Random, press: Default::default() };
    let mut greedy = stratego_baselines::greedy::GreedyPlayer::default();
    let red = us.choose_setup(PieceSet::Classic, &mut rng);
    let blue = greedy.choose_setup(PieceSet::Classic, &mut rng);
    let mut s = State::from_setups(Ruleset::classic(), &red, &blue).unwrap();
    let mut h: Vec<PublicPly> = vec![];
    println!("{}", s.board().pretty());
    while !s.is_terminal() {
        let view = InfoView::new(&s, &h);
        let mv = if s.to_move() == Color::Red {
            let vals = net.move_values(&view);
            let mv = us.choose_move(&view, &mut rng).unwrap();
            let mut sorted: Vec<_> = view.legal_moves.iter().zip(&vals).collect();
            sorted.sort_by(|a, b| b.1.total_cmp(a.1));
            let top: Vec<String> = sorted.iter().take(4).map(|(m, v)| format!("{m}:{v:.3}")).collect();
            print!("[{}] ", top.join(" "));
            mv
        } else {
            greedy.choose_move(&view, &mut rng).unwrap()
        };
        s.apply_move(mv).unwrap();
        h.push(PublicPly::of(s.history().last().unwrap()));
        let r = s.history().last().unwrap();
        let fight = r.battle.map_or(String::new(), |b| format!("  {} attacks {}: {:?}", r.piece, b.defender, b.result));
        println!("{:>4} {} {}{}", s.ply(), r.player, r.mv, fight);
    }
    println!("{:?}", s.outcome());
    println!("{}", s.board().pretty());
}
