//! Program 3 of the paper: the pieces placed into one precomputed outline, in a fixed order,
//! with every congruent dissection generated once.
//!
//! Every placement of a kind inside the outline (orientation and position) is listed once and
//! numbered, in a fixed order. Pieces are placed kind by kind, largest kind first as the piece
//! file lists them; copies of a kind take increasing numbers, so permuting identical pieces
//! never gives a second dissection. When a kind starts, the group `U` of the outline's
//! symmetries that map every kind placed so far onto itself is taken (the outline's own group
//! for the first kind; it can only shrink). A new copy survives only if no symmetry in `U` maps
//! this kind's placements to a set that sorts earlier: that keeps exactly the lexicographically
//! first of the congruent dissections, and cuts the others off as high in the tree as their
//! first difference.
//!
//! Why this keeps exactly one dissection per class. Order dissections by their kinds' sorted
//! numbers, first kind first. If some `g` in `U` sorts the first `m` copies of a kind earlier,
//! it sorts the whole kind earlier too (the `i`-th smallest of a superset is no larger, and the
//! later copies only add higher numbers), so the finished dissection is not the first of its
//! class and the branch can go. Conversely, a dissection that passes every test is the first:
//! for any symmetry `g`, the first kind on which `g` moves it was tested under a `U` holding `g`.
//!
//! Worked example: the square of side 2√2 (outline 4,4,2,2,2,2: 16 elementary triangles, all
//! eight symmetries) and the classic pieces. The first large triangle fits in 4 places, each a
//! quarter of the square with its right angle at the centre, each a quarter turn of the others:
//! the symmetry test keeps only the lowest-numbered. The second large triangle takes a higher
//! number among the three quarters left; the symmetries that keep both triangles where they
//! are (one mirror line at most) then judge the medium triangle, and so on. The square has one
//! dissection.

use std::collections::{HashMap, HashSet};

use super::lattice::{transform_quarter, Point, Quarter, Region, Symmetry, MAX_QUARTERS};
use super::outline::Outline;
use super::pieces::PieceSet;
use crate::{Error, Result};

/// A piece of one kind in one orientation at one offset inside the outline.
#[derive(Clone, Debug)]
pub struct Placement {
    pub region: Region,
    pub orientation: usize,
    pub offset: Point,
}

/// How often the search tried, fitted and kept a piece (the paper reports 13616, 1451 and 1326
/// for the tangram, with its own placement order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effort {
    pub tried: u64,
    pub fitted: u64,
    pub kept: u64,
}

/// The search of one outline.
pub struct OutlineSearch<'a> {
    pieces: &'a PieceSet,
    /// Every quarter of the outline, one bit each.
    region: Region,
    /// Every placement of each kind inside the outline, in numbering order.
    placements: Vec<Vec<Placement>>,
    /// The outline's symmetries but the identity, each with the number of the image of every
    /// placement of every kind.
    images: Vec<(Symmetry, Vec<Vec<usize>>)>,
    /// The kind of each piece, in placing order.
    kind_of: Vec<usize>,
}

impl<'a> OutlineSearch<'a> {
    pub fn new(pieces: &'a PieceSet, outline: Outline) -> Result<OutlineSearch<'a>> {
        if pieces.area() != outline.area() {
            return Err(Error::InvalidRequest(format!(
                "the pieces cover {} elementary triangles, the outline {} covers {}: an outline must have the \
                 pieces' total area",
                pieces.area(),
                outline.label(),
                outline.area()
            )));
        }
        // The outline's quarters are numbered in row order: a placement is a bit set over
        // them, however large the outline's bounding box (thin strips have huge boxes).
        let quarters = outline.quarters();
        if quarters.len() > MAX_QUARTERS {
            return Err(Error::InvalidRequest(format!(
                "outline {}: {} elementary triangles, more than the {} this program places pieces in",
                outline.label(),
                outline.area(),
                MAX_QUARTERS / 2
            )));
        }
        let number: HashMap<Quarter, usize> = quarters.iter().enumerate().map(|(i, &q)| (q, i)).collect();
        let mut region = Region::default();
        (0..quarters.len()).for_each(|bit| region.insert(bit));
        let placements: Vec<Vec<Placement>> =
            pieces.kinds.iter().map(|kind| placements_of(kind, outline, &number)).collect();
        let (width, height) = (outline.s2 as usize, outline.s4 as usize);
        let mut images = Vec::new();
        for symmetry in outline.symmetries_of(&quarters).into_iter().filter(|&s| s != Symmetry::IDENTITY) {
            let moved = |placement: &Placement| -> Option<Region> {
                let mut image = Region::default();
                for bit in placement.region.bits() {
                    image.insert(*number.get(&transform_quarter(quarters[bit], symmetry, width, height))?);
                }
                Some(image)
            };
            let per_kind = placements
                .iter()
                .map(|list| {
                    let numbered: HashMap<Region, usize> =
                        list.iter().enumerate().map(|(i, p)| (p.region, i)).collect();
                    list.iter()
                        .map(|p| {
                            moved(p).and_then(|image| numbered.get(&image).copied()).ok_or_else(|| {
                                Error::Bug(format!(
                                    "a symmetry of outline {} moved a piece outside it",
                                    outline.label()
                                ))
                            })
                        })
                        .collect::<Result<Vec<usize>>>()
                })
                .collect::<Result<Vec<_>>>()?;
            images.push((symmetry, per_kind));
        }
        let kind_of =
            pieces.kinds.iter().enumerate().flat_map(|(k, kind)| std::iter::repeat_n(k, kind.copies)).collect();
        Ok(OutlineSearch { pieces, region, placements, images, kind_of })
    }

    pub fn placement(&self, kind: usize, number: usize) -> &Placement {
        &self.placements[kind][number]
    }

    /// The kind of each piece in placing order.
    pub fn kinds(&self) -> &[usize] {
        &self.kind_of
    }

    /// The first piece's placements that can start a kept dissection (those no symmetry of the
    /// outline maps to a lower number): the shards of this outline.
    pub fn first_placements(&self) -> Vec<usize> {
        (0..self.placements[0].len()).filter(|&p| self.images.iter().all(|(_, image)| image[0][p] >= p)).collect()
    }

    /// The essentially different dissections, each handed to `visit`; with `first`, only those
    /// whose first piece has that placement.
    pub fn search(&self, first: Option<usize>, visit: &mut dyn FnMut(&[usize])) -> Effort {
        let mut walk = Walk { search: self, prune: true, first, effort: Effort::default(), visit };
        let group: Vec<usize> = (0..self.images.len()).collect();
        walk.descend(0, Region::default(), &mut Vec::new(), &group);
        walk.effort
    }

    /// The number of essentially different dissections.
    pub fn count(&self, first: Option<usize>) -> (u128, Effort) {
        let mut count = 0u128;
        let effort = self.search(first, &mut |_| count += 1);
        (count, effort)
    }

    /// Every dissection, without the ordering of identical pieces and without the symmetry test;
    /// the congruent ones are merged afterwards by their canonical forms. A slow, independent
    /// route to [`OutlineSearch::count`], for tests.
    pub fn count_without_pruning(&self) -> u128 {
        let mut forms = HashSet::new();
        let mut walk = Walk {
            search: self,
            prune: false,
            first: None,
            effort: Effort::default(),
            visit: &mut |dissection: &[usize]| {
                forms.insert(self.canonical(dissection));
            },
        };
        walk.descend(0, Region::default(), &mut Vec::new(), &[]);
        forms.len() as u128
    }

    /// The smallest image of a dissection under the outline's symmetries, each kind's numbers sorted.
    fn canonical(&self, dissection: &[usize]) -> Vec<usize> {
        let sorted = |numbers: &[usize]| -> Vec<usize> {
            (0..self.pieces.kinds.len())
                .flat_map(|k| {
                    let mut of_kind = kind_numbers(numbers, &self.kind_of, k);
                    of_kind.sort_unstable();
                    of_kind
                })
                .collect()
        };
        let mut best = sorted(dissection);
        for (_, image) in &self.images {
            let moved: Vec<usize> = dissection.iter().zip(&self.kind_of).map(|(&n, &k)| image[k][n]).collect();
            best = best.min(sorted(&moved));
        }
        best
    }

    /// Whether the outline is covered exactly by `dissection` (for checks).
    pub fn covers(&self, dissection: &[usize]) -> bool {
        let mut covered = Region::default();
        for (&number, &kind) in dissection.iter().zip(&self.kind_of) {
            let region = &self.placements[kind][number].region;
            if !covered.is_disjoint(region) {
                return false;
            }
            covered = covered.union(region);
        }
        covered == self.region
    }
}

/// Every placement of `kind` inside `outline` (whose quarters `number` numbers), sorted by region.
fn placements_of(kind: &super::pieces::Kind, outline: Outline, number: &HashMap<Quarter, usize>) -> Vec<Placement> {
    let mut list = Vec::new();
    for (orientation, o) in kind.orientations.iter().enumerate() {
        let own: Vec<Quarter> = o.region.bits().map(|bit| o.frame.quarter(bit)).collect();
        for dy in 0..=outline.s4 - o.frame.height as i32 {
            for dx in 0..=outline.s2 - o.frame.width as i32 {
                let mut region = Region::default();
                let fits = own.iter().all(|&(x, y, q)| match number.get(&(x + dx, y + dy, q)) {
                    Some(&bit) => {
                        region.insert(bit);
                        true
                    }
                    None => false,
                });
                if fits {
                    list.push(Placement { region, orientation, offset: (dx, dy) });
                }
            }
        }
    }
    list.sort_by_key(|a| a.region);
    list
}

/// One depth-first walk of the tree.
struct Walk<'s, 'v> {
    search: &'s OutlineSearch<'s>,
    prune: bool,
    first: Option<usize>,
    effort: Effort,
    visit: &'v mut dyn FnMut(&[usize]),
}

impl Walk<'_, '_> {
    /// Places piece `depth` (`chosen` holds the placements of the pieces before it); `group`
    /// indexes the symmetries in `U` for the current kind.
    fn descend(&mut self, depth: usize, covered: Region, chosen: &mut Vec<usize>, group: &[usize]) {
        let search = self.search;
        if depth == search.kind_of.len() {
            (self.visit)(chosen);
            return;
        }
        let kind = search.kind_of[depth];
        let starts_kind = depth == 0 || search.kind_of[depth - 1] != kind;
        // A new kind: keep the symmetries that map every kind so far onto itself.
        let narrowed: Vec<usize>;
        let group = if starts_kind && depth > 0 && self.prune {
            let previous = search.kind_of[depth - 1];
            let placed = kind_numbers(chosen, &search.kind_of, previous);
            narrowed =
                group.iter().copied().filter(|&g| image_of(&search.images[g].1[previous], &placed) == placed).collect();
            &narrowed[..]
        } else {
            group
        };
        let from = if self.prune && !starts_kind { chosen[depth - 1] + 1 } else { 0 };
        let candidates = from..search.placements[kind].len();
        for number in candidates {
            if depth == 0 && self.first.is_some_and(|first| first != number) {
                continue;
            }
            self.effort.tried += 1;
            let region = &search.placements[kind][number].region;
            if !covered.is_disjoint(region) {
                continue;
            }
            self.effort.fitted += 1;
            chosen.push(number);
            if !self.prune || self.first_of_its_class(kind, chosen, group) {
                self.effort.kept += 1;
                self.descend(depth + 1, covered.union(region), chosen, group);
            }
            chosen.pop();
        }
    }

    /// The symmetry test: no symmetry in `group` maps the current kind's placements to a set
    /// that sorts before them.
    fn first_of_its_class(&self, kind: usize, chosen: &[usize], group: &[usize]) -> bool {
        let search = self.search;
        let placed = kind_numbers(chosen, &search.kind_of, kind);
        group.iter().all(|&g| image_of(&search.images[g].1[kind], &placed) >= placed)
    }
}

/// The numbers of kind `kind` among `chosen`, in placing order.
fn kind_numbers(chosen: &[usize], kind_of: &[usize], kind: usize) -> Vec<usize> {
    chosen.iter().zip(kind_of).filter(|(_, &k)| k == kind).map(|(&n, _)| n).collect()
}

/// The sorted images of `numbers` under one symmetry's table.
fn image_of(table: &[usize], numbers: &[usize]) -> Vec<usize> {
    let mut image: Vec<usize> = numbers.iter().map(|&n| table[n]).collect();
    image.sort_unstable();
    image
}

#[cfg(test)]
mod tests {
    use super::super::outline::outlines;
    use super::*;

    #[test]
    fn the_classic_tangram_makes_142_figures_in_13_outlines() {
        let pieces = PieceSet::classic();
        let mut counts = Vec::new();
        for outline in outlines(16).unwrap() {
            let search = OutlineSearch::new(&pieces, outline).unwrap();
            let (count, _) = search.count(None);
            let mut by_shard = 0;
            for first in search.first_placements() {
                by_shard += search.count(Some(first)).0;
            }
            assert_eq!(by_shard, count, "{outline:?}: the shards add up to the whole");
            search.search(None, &mut |d| assert!(search.covers(d), "{outline:?}: {d:?}"));
            assert_eq!(search.count_without_pruning(), count, "{outline:?} without the symmetry test");
            counts.push((outline, count));
        }
        assert_eq!(counts.len(), 20);
        assert_eq!(counts.iter().filter(|(_, c)| *c > 0).count(), 13);
        assert_eq!(counts.iter().map(|(_, c)| c).sum::<u128>(), 142);
        let of = |t: [i32; 6]| counts.iter().find(|(o, _)| *o == Outline::new(t).canonical()).unwrap().1;
        assert_eq!(of([4, 4, 2, 2, 2, 2]), 1, "the square");
        assert_eq!(of([5, 2, 2, 0, 0, 0]), 36, "the right trapezoid 3, 2, 5, 2√2");
    }
}
