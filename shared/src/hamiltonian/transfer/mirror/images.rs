//! The mirror images of the window at one mirror point: for each window position, the position
//! of its left-right image in the next state's frame ([`Mirror`]), and whole masks of positions
//! moved to their images a byte at a time by table ([`mirror_mask`]): reading a state's image
//! costs four lookups.

use crate::hamiltonian::frontier::MAX_WINDOW;
use crate::hamiltonian::order::RowOrder;

/// No mirror: the image of a window position that falls outside the window, or (in
/// `mirror_after`) a cell after which the cells processed are not symmetric.
pub const NO_MIRROR: u8 = u8::MAX;

/// The left-right mirror image of the window at one point of a row where the cells processed
/// are symmetric.
pub struct Mirror {
    /// The window position (next state's frame) of the image of each position (`NO_MIRROR`
    /// where the image falls outside the window).
    pub image: [u8; MAX_WINDOW + 1],
    /// [`mirror_mask`] by table: for each byte of a mask (positions
    /// `8i` to `8i + 7`), the images of its positions ([`OUTSIDE`] for an image outside the
    /// window).
    bytes: Box<[[u64; 256]; 4]>,
}

impl Mirror {
    /// The images of a window of `reach` positions that starts after the first `processed`
    /// cells of a row.
    pub fn new(order: &RowOrder, processed: usize, reach: usize) -> Self {
        let width = order.width();
        let mut image = [NO_MIRROR; MAX_WINDOW + 1];
        for (p, image) in image.iter_mut().enumerate().take(reach) {
            let at = processed + p;
            let q = at / width * width + order.mirror(at % width);
            // The processed cells are symmetric, so images of later cells are later: q >= processed.
            if q - processed < reach {
                *image = (q - processed) as u8;
            }
        }
        let mut bytes = Box::new([[0u64; 256]; 4]);
        for (i, table) in bytes.iter_mut().enumerate() {
            for (byte, images) in table.iter_mut().enumerate() {
                // Position 0 (the cell just processed) is never asked about.
                for p in (0..8).filter(|j| byte >> j & 1 == 1).map(|j| 8 * i + j).filter(|&p| p > 0) {
                    *images |= match image[p - 1] {
                        NO_MIRROR => OUTSIDE,
                        q => 1 << (q + 1),
                    };
                }
            }
        }
        Mirror { image, bytes }
    }
}

/// The image [`mirror_mask`] gives a position whose mirror image falls outside
/// the window: a bit no window position has.
pub const OUTSIDE: u64 = 1 << 63;

/// Positions `p >= 1` of a state (frame of the state before the cell `mirror` follows) moved to
/// their mirror images in the same frame; a position whose image falls outside the window gives
/// [`OUTSIDE`]. Position 0 is left out.
#[inline]
pub fn mirror_mask(mirror: &Mirror, mask: u64) -> u64 {
    debug_assert!(mask >> 32 == 0);
    let byte = |i: usize| mirror.bytes[i][(mask >> (8 * i)) as usize & 0xFF];
    byte(0) | byte(1) | byte(2) | byte(3)
}
