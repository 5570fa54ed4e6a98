//! `leaper graph`: Hamiltonian cycles and paths of any graph, against brute force on random
//! graphs in several vertex orders, published values (grid graphs, complete graphs, the
//! Petersen graph, the dodecahedron, the 4-cube), and the knight's own counts of the same
//! boards given as graphs, renamed and shuffled.

use leaper_core::engine::problem::{table, Job, Problem};
mod common;

use common::{checked_residues, in_memory, known};
use leaper_core::engine::SweepJob;
use leaper_core::hamiltonian::board::{Geometry, MoveSet};
use leaper_core::hamiltonian::transfer::{tours, SlotTour, TourKind};
use leaper_core::problems::graph::command::GraphParams;
use leaper_core::problems::graph::input::{Format, Graph};
use leaper_core::problems::graph::GraphProblem;

/// A small deterministic generator (the tests need no randomness crate).
struct Random(u64);

impl Random {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % bound as u64) as usize
    }

    fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut items: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            items.swap(i, self.below(i + 1));
        }
        items
    }
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|v| v.to_string()).collect()
}

/// The counts of a sweep, by slot.
fn sweep(job: &dyn SweepJob) -> Vec<(usize, String)> {
    let report = in_memory(job, &checked_residues(), 7);
    report.counts.iter().map(|(slot, count)| (*slot, count.to_string())).collect()
}

/// The (cycles, paths) of `graph` that `leaper graph --tours both` counts, in `order` (the
/// heuristics' when `None`).
fn counted(graph: &Graph, order: Option<Vec<usize>>) -> (String, String) {
    let order = order.map(|vertices| (vertices, "test".to_string()));
    let params = GraphParams::new("test".into(), graph, Vec::new(), TourKind::Both, false, order).expect("fits");
    let task = GraphProblem.task(&table(&params).unwrap()).unwrap();
    let Job::Sweep(job) = task.job().unwrap() else { panic!("a graph count is a sweep") };
    let counts = sweep(job.as_ref());
    let slot = |open| SlotTour { open, rows: 1 }.slot(TourKind::Both);
    let of = |open| counts.iter().find(|(s, _)| *s == slot(open)).map(|(_, c)| c.clone()).unwrap();
    (of(false), of(true))
}

/// Brute force, sharing nothing with the transfer matrix: every path walked from every vertex.
/// Returns (cycles, paths), undirected.
fn brute(graph: &Graph) -> (u64, u64) {
    let n = graph.vertices();
    if n == 1 {
        return (0, 1);
    }
    fn walk(graph: &Graph, visited: &mut Vec<bool>, start: usize, head: usize, depth: usize, found: &mut (u64, u64)) {
        if depth == graph.vertices() {
            found.1 += 1;
            if graph.neighbours(head).contains(&start) && depth >= 3 {
                found.0 += 1;
            }
            return;
        }
        for &next in graph.neighbours(head) {
            if !visited[next] {
                visited[next] = true;
                walk(graph, visited, start, next, depth + 1, found);
                visited[next] = false;
            }
        }
    }
    let mut found = (0, 0);
    for start in 0..n {
        let mut visited = vec![false; n];
        visited[start] = true;
        walk(graph, &mut visited, start, start, 1, &mut found);
    }
    // Each cycle was walked from each of its n vertices in both directions; each path from
    // both ends.
    (found.0 / (2 * n as u64), found.1 / 2)
}

fn random_graph(random: &mut Random, n: usize, percent: usize) -> Graph {
    let edges: Vec<(usize, usize)> =
        (0..n).flat_map(|u| (u + 1..n).map(move |v| (u, v))).filter(|_| random.below(100) < percent).collect();
    Graph::from_edges(names(n), edges)
}

#[test]
fn random_graphs_up_to_twelve_vertices_count_as_brute_force_does_in_every_order() {
    let mut random = Random(2026);
    let mut nonzero = (0, 0);
    for n in 1..=12 {
        for percent in [25, 45, 65, 85] {
            if n >= 10 && percent > 45 {
                continue; // brute force walks too many paths there
            }
            for _ in 0..3 {
                let graph = random_graph(&mut random, n, percent);
                let (cycles, paths) = brute(&graph);
                nonzero.0 += usize::from(cycles > 0);
                nonzero.1 += usize::from(paths > 0);
                let expected = (cycles.to_string(), paths.to_string());
                let orders = [None, Some((0..n).collect()), Some(random.permutation(n))];
                for order in orders {
                    assert_eq!(counted(&graph, order.clone()), expected, "{n} vertices {percent}%, order {order:?}");
                }
            }
        }
    }
    assert!(nonzero.0 > 20 && nonzero.1 > 30, "too few graphs with cycles or paths: {nonzero:?}");
}

/// The `w` x `h` grid graph.
fn grid(w: usize, h: usize) -> Graph {
    Graph::from_edges(names(w * h), leaper_core::problems::graph::grid_edges(w, h))
}

#[test]
fn published_counts() {
    // Grid graphs: A003763 (6, 1072, 4638576).
    assert_eq!(counted(&grid(4, 4), None).0, known("grid 4x4"));
    assert_eq!(counted(&grid(6, 6), None).0, known("grid 6x6"));
    assert_eq!(counted(&grid(8, 8), None).0, known("grid 8x8"));
    // Complete graphs: (n - 1)! / 2 cycles, n! / 2 paths.
    for n in 3..=10u64 {
        let edges: Vec<(usize, usize)> =
            (0..n as usize).flat_map(|u| (u + 1..n as usize).map(move |v| (u, v))).collect();
        let factorial = |k: u64| (1..=k).product::<u64>();
        assert_eq!(
            counted(&Graph::from_edges(names(n as usize), edges), None),
            ((factorial(n - 1) / 2).to_string(), (factorial(n) / 2).to_string()),
            "K{n}"
        );
    }
    // The Petersen graph, as nauty writes it: no Hamiltonian cycle, and 120 paths... counted
    // against brute force, which needs no published value.
    let (petersen, _) = Graph::read("IheA@GUAo\n", None, "petersen").unwrap();
    assert_eq!((petersen.vertices(), petersen.edge_count()), (10, 15));
    let (cycles, paths) = brute(&petersen);
    assert_eq!(cycles, 0);
    assert_eq!(counted(&petersen, None), ("0".to_string(), paths.to_string()));
    // The dodecahedron: 30 Hamiltonian cycles (Hamilton's icosian game).
    let dodecahedron = [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 0), // outer ring
        (0, 5),
        (1, 6),
        (2, 7),
        (3, 8),
        (4, 9), // spokes
        (5, 10),
        (10, 6),
        (6, 11),
        (11, 7),
        (7, 12),
        (12, 8),
        (8, 13),
        (13, 9),
        (9, 14),
        (14, 5), // middle ring
        (10, 15),
        (11, 16),
        (12, 17),
        (13, 18),
        (14, 19), // spokes
        (15, 16),
        (16, 17),
        (17, 18),
        (18, 19),
        (19, 15), // inner ring
    ];
    let dodecahedron = Graph::from_edges(names(20), dodecahedron);
    assert!((0..20).all(|v| dodecahedron.neighbours(v).len() == 3));
    assert_eq!(counted(&dodecahedron, None).0, "30");
    // The 4-cube: 1344 Hamiltonian cycles (A066037).
    let cube: Vec<(usize, usize)> =
        (0..16usize).flat_map(|u| (0..4).map(move |b| (u, u ^ 1 << b))).filter(|(u, v)| u < v).collect();
    assert_eq!(counted(&Graph::from_edges(names(16), cube), None).0, "1344");
}

/// The knight graph of a `w` x `h` board, cells named as chess does (`a1`).
fn knight_graph(w: usize, h: usize) -> Graph {
    let geometry = Geometry::new(w, h, MoveSet::knight());
    let edges: Vec<(usize, usize)> = (0..w * h)
        .flat_map(|u| geometry.neighbours(u).filter(move |&v| u < v).map(move |v| (u, v)).collect::<Vec<_>>())
        .collect();
    let names = (0..w * h).map(|c| format!("{}{}", (b'a' + (c % w) as u8) as char, c / w + 1)).collect();
    Graph::from_edges(names, edges)
}

/// The knight's own count (closed, open) of a `w` x `h` board.
fn knight_counts(w: usize, h: usize) -> (String, String) {
    let (width, rows) = (w.min(h), w.max(h));
    let job = tours(Geometry::new(width, rows, MoveSet::knight()), rows, TourKind::Both).unwrap();
    let counts = sweep(job.as_ref());
    let of = |open| {
        let slot = SlotTour { open, rows }.slot(TourKind::Both);
        counts.iter().find(|(s, _)| *s == slot).map(|(_, c)| c.clone()).unwrap()
    };
    (of(false), of(true))
}

#[test]
fn knight_boards_as_edge_lists_and_graph6_count_as_the_knight_does_renamed_and_shuffled() {
    let mut random = Random(7);
    for (w, h) in [(3, 4), (4, 5), (5, 5), (5, 6), (6, 6), (4, 8)] {
        let expected = knight_counts(w, h);
        let board = knight_graph(w, h);
        let shuffled = board.relabelled(&random.permutation(w * h));
        for (graph, format) in [(&board, Format::EdgeList), (&shuffled, Format::EdgeList), (&shuffled, Format::Graph6)]
        {
            let text = match format {
                Format::Graph6 => graph.to_graph6(),
                _ => graph.to_edge_list(),
            };
            let (read, _) = Graph::read(&text, None, "board").unwrap();
            assert_eq!(counted(&read, None), expected, "knight {w}x{h} as {format:?}");
        }
    }
}

#[test]
fn a_board_with_two_corners_of_one_colour_removed_has_a_reason_and_no_cycle() {
    // The 6 x 6 knight board without a1 and f6 (both dark): 16 dark squares, 18 light.
    let board = knight_graph(6, 6);
    let kept: Vec<usize> = (0..36).filter(|&c| c != 0 && c != 35).collect();
    let index = |c: usize| kept.iter().position(|&k| k == c);
    let edges: Vec<(usize, usize)> = board.edges().filter_map(|(u, v)| Some((index(u)?, index(v)?))).collect();
    let names = kept.iter().map(|&c| board.name(c).to_string()).collect();
    let holed = Graph::from_edges(names, edges);
    let params = GraphParams::new("holed".into(), &holed, Vec::new(), TourKind::Closed, false, None).unwrap();
    let task = GraphProblem.task(&table(&params).unwrap()).unwrap();
    let reasons = task.reasons();
    assert_eq!(reasons.len(), 1);
    assert!(reasons[0].1.contains("bipartite with sides of 16 and 18 vertices"), "{reasons:?}");
    assert_eq!(counted(&holed, None).0, "0");
}

#[test]
fn boards_with_squares_removed_count_as_brute_force_does() {
    use leaper_core::problems::tours::holes::{holed_graph, square_name};
    use leaper_core::problems::tours::{TourParams, Tours};
    let mut random = Random(11);
    let mut nonzero = 0;
    for (w, h) in [(4, 5), (5, 5), (3, 6), (5, 4), (4, 6)] {
        for holes in 1..=3 {
            let removed: Vec<String> = {
                let mut cells: Vec<usize> = random.permutation(w * h).into_iter().take(holes).collect();
                cells.sort_by_key(|&c| (c / w, c % w));
                cells.iter().map(|&c| square_name(c % w, c / w)).collect()
            };
            for tours in [TourKind::Closed, TourKind::Open] {
                let params = TourParams {
                    piece: "knight".into(),
                    moves: "1,2".into(),
                    board: format!("{w}x{h}"),
                    sweep: false,
                    tours,
                    directed: false,
                    distinct: false,
                    removed: removed.clone(),
                };
                let task = Tours.task(&table(&params).unwrap()).unwrap();
                let Job::Sweep(job) = task.job().unwrap() else { panic!("a sweep") };
                let counted = sweep(job.as_ref());
                assert_eq!(counted.len(), 1);
                // Brute force on the board's own graph, built here from the board's moves.
                let (width, rows, transposed) = if w > h { (h, w, true) } else { (w, h, false) };
                let board = holed_graph(&Geometry::new(width, rows, MoveSet::knight()), transposed, &removed);
                let (names, adjacency) = (board.names, board.adjacency);
                let edges: Vec<(usize, usize)> = adjacency
                    .iter()
                    .enumerate()
                    .flat_map(|(u, near)| near.iter().filter(move |&&v| u < v).map(move |&v| (u, v)))
                    .collect();
                let (cycles, paths) = brute(&Graph::from_edges(names, edges));
                let expected = if tours == TourKind::Open { paths } else { cycles };
                nonzero += usize::from(expected > 0);
                assert_eq!(counted[0].1, expected.to_string(), "knight {w}x{h} without {removed:?}, {tours:?}");
                // A reason promises 0.
                if !task.reasons().is_empty() {
                    assert_eq!(expected, 0, "{:?}", task.reasons());
                }
            }
        }
    }
    assert!(nonzero >= 5, "too few boards with tours: {nonzero}");
}

#[test]
fn the_chessboard_without_two_opposite_corners_has_a_colour_reason_before_counting() {
    use leaper_core::problems::tours::{TourParams, Tours};
    let params = TourParams {
        piece: "knight".into(),
        moves: "1,2".into(),
        board: "8x8".into(),
        sweep: false,
        tours: TourKind::Both,
        directed: false,
        distinct: false,
        removed: vec!["a1".into(), "h8".into()],
    };
    let reasons = Tours.task(&table(&params).unwrap()).unwrap().reasons();
    // Closed tours need as many squares of each colour, open tours within one: 32 and 30 allow
    // neither.
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(
        reasons[0].1,
        "knight 8x8 without a1, h8: no closed tour: every knight move changes the square's colour and the board \
         has 32 squares of one colour and 30 of the other, but a closed tour alternates colours, so it needs as \
         many of each"
    );
    assert!(reasons[1].1.starts_with("knight 8x8 without a1, h8: no open tour:"), "{reasons:?}");
    assert!(reasons[1].1.ends_with("so the two can differ by at most one"), "{reasons:?}");
}
