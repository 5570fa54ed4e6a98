use super::group::{route, Route};
use super::walk::fixed_tours;
use super::*;
use crate::engine::Transition;
use crate::hamiltonian::board::MoveSet;
use crate::hamiltonian::symmetry::Symmetry;

/// Runs a fold by itself (in memory, u128 keys) and returns its count.
fn fold_count(geometry: &Geometry, symmetry: Symmetry, open: bool) -> u128 {
    let graph = FoldedGraph::new(geometry, symmetry).unwrap();
    let fold: FoldedTours<u128> = FoldedTours::new(&graph, open, 120).unwrap();
    let mut layer: std::collections::HashMap<u128, u128> = [(fold.start(), 1)].into();
    let mut total = 0u128;
    for step in 0..Transition::steps(&fold) {
        let mut next = std::collections::HashMap::new();
        for (&key, &count) in &layer {
            fold.expand(step, key, &mut |k| *next.entry(k).or_insert(0) += count, &mut |_| total += count);
        }
        layer = next;
    }
    total
}

#[test]
fn folds_agree_with_the_orbit_walk() {
    let knight = MoveSet::knight();
    let mut checked = 0;
    for (width, rows) in
        [(3, 4), (4, 5), (5, 5), (5, 6), (6, 5), (4, 6), (6, 6), (5, 8), (6, 7), (3, 10), (6, 8), (7, 6)]
    {
        let geometry = Geometry::new(width, rows, knight.clone());
        // Open tours' walks start anywhere: kept to boards of 36 cells.
        for open in [false, true].into_iter().filter(|&open| !open || width * rows <= 36) {
            for symmetry in [Symmetry::HalfTurn, Symmetry::RowMirror, Symmetry::ColumnMirror] {
                let walked = fixed_tours(&geometry, symmetry, open);
                let routed = route(&geometry, symmetry, open);
                if routed == Route::Fold {
                    let folded = fold_count(&geometry, symmetry, open);
                    assert_eq!(folded, walked, "{width}x{rows} {symmetry:?} open={open}");
                    checked += 1;
                } else {
                    assert_eq!(
                        walked, 0,
                        "{width}x{rows} {symmetry:?} open={open}: {routed:?} but the walk finds tours"
                    );
                }
            }
        }
    }
    assert!(checked > 10);
}

#[test]
fn tiny_boards_and_other_leapers_agree_with_the_walk_and_with_burnside() {
    // The king (a cycle may be reflected through cells on the axis) and the knight on boards a
    // side of which is one or two cells: every route against the walk, on both kinds.
    let king: MoveSet = "1,0+1,1".parse().unwrap();
    for (moves, boards) in [
        (king, &[(2, 3), (3, 3), (3, 4), (4, 4), (2, 6), (3, 5), (4, 5)][..]),
        (MoveSet::knight(), &[(1, 1), (2, 5), (3, 3), (4, 4)][..]),
    ] {
        for &(width, rows) in boards {
            let geometry = Geometry::new(width, rows, moves.clone());
            for open in [false, true] {
                for symmetry in Symmetry::group(width, rows).into_iter().skip(1) {
                    let walked = fixed_tours(&geometry, symmetry, open);
                    match route(&geometry, symmetry, open) {
                        Route::Fold => assert_eq!(
                            fold_count(&geometry, symmetry, open),
                            walked,
                            "{width}x{rows} {symmetry:?} open={open}"
                        ),
                        Route::None(why) => assert_eq!(walked, 0, "{width}x{rows} {symmetry:?} open={open}: {why}"),
                        Route::Walk | Route::Sweep => {}
                    }
                }
            }
        }
    }
}

#[test]
fn the_quarter_turn_walk_finds_the_published_six_by_six_tours_and_none_on_eight_by_eight() {
    let knight = MoveSet::knight();
    let six = Geometry::new(6, 6, knight.clone());
    assert_eq!(fixed_tours(&six, Symmetry::QuarterTurn, false), 10);
    assert_eq!(fixed_tours(&six, Symmetry::ThreeQuarterTurn, false), 10);
    assert_eq!(fixed_tours(&six, Symmetry::HalfTurn, false), 78);
    // 8x8: the colour argument says no quarter turn fixes a closed tour; the walk agrees.
    let eight = Geometry::new(8, 8, knight);
    assert!(matches!(route(&eight, Symmetry::QuarterTurn, false), Route::None(_)));
    assert_eq!(fixed_tours(&eight, Symmetry::QuarterTurn, false), 0);
}
