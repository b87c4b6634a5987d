// TEMPORARY diagnostic (not to be committed).
use rand::SeedableRng;
use stratego_baselines::ntuple::alphabet::*;
use stratego_baselines::ntuple::*;
use stratego_engine::*;
use stratego_players::player::AgentRng;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let net = NTupleNet::load(std::path::Path::new(&a[1]), None).unwrap();
    let mut rng = AgentRng::seed_from_u64(5);
    let mut own_loss = [0.0f64; 16];
    let mut opp_loss = [0.0f64; 16];
    let mut cnt = [0.0f64; 16];
    let mut ocnt = [0.0f64; 16];
    let mut mat_own = [0.0f64; 12];
    let mut mat_opp = [0.0f64; 12];
    let mut mn = [0.0f64; 12];
    let mut base_sum = 0.0;
    for g in 0..200 {
        let red = stratego_players::setup_policy::SetupPolicy::Handcrafted.choose(PieceSet::Classic, &mut rng);
        let blue = Setup::random(PieceSet::Classic, &mut rng);
        let mut s = State::from_setups(Ruleset::classic(), &red, &blue).unwrap();
        for _ in 0..(g % 100) {
            let Some(mv) = s.sample_legal_move(&mut rng) else { break };
            s.apply_move(mv).unwrap();
        }
        let b = encode_state(&s, Color::Red);
        let base = net.raw(&b);
        base_sum += base as f64;
        for c in 0..100 {
            let sym = b.board[c];
            if sym >= 2 && sym != LAKE {
                let mut x = b;
                x.board[c] = EMPTY;
                let d = (net.raw(&x) - base) as f64;
                if sym < 8 {
                    own_loss[sym as usize] += d;
                    cnt[sym as usize] += 1.0;
                } else {
                    opp_loss[sym as usize] += d;
                    ocnt[sym as usize] += 1.0;
                }
            }
        }
        for t in 0..12 {
            if b.material.own[t] > 0 && b.material.opp[t] > 0 {
                let mut x = b;
                x.material.own[t] -= 1;
                mat_own[t] += (net.raw(&x) - base) as f64;
                let mut y = b;
                y.material.opp[t] -= 1;
                mat_opp[t] += (net.raw(&y) - base) as f64;
                mn[t] += 1.0;
            }
        }
    }
    println!("mean raw {:.3}", base_sum / 200.0);
    for s in 2..16 {
        let (v, n) = if s < 8 { (own_loss[s], cnt[s]) } else { (opp_loss[s], ocnt[s]) };
        if n > 0.0 {
            println!("{:>20}: removing changes raw by {:+.4} (n={})", ALPHABET[s], v / n, n);
        }
    }
    for t in 0..12 {
        if mn[t] > 0.0 {
            println!(
                "material {:>10}: own -1: {:+.4}  opp -1: {:+.4}",
                PieceType::ALL[t].name(),
                mat_own[t] / mn[t],
                mat_opp[t] / mn[t]
            );
        }
    }
}
