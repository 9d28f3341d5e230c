//! The tray icon image: the app's inbox glyph with the pending count drawn onto it.
//!
//! Drawn in Rust as raw RGBA so the count is always exact (no font or image files at run time)
//! and the icon can be re-rendered cheaply every time the count changes.

/// Width and height of the rendered icon in pixels; trays scale it down as they like.
pub const SIZE: u32 = 64;

const ACCENT: [u8; 3] = [37, 99, 235];
const BADGE: [u8; 3] = [220, 38, 38];
const WHITE: [u8; 3] = [255, 255, 255];

/// A square RGBA image, row-major, `SIZE * SIZE * 4` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadgeImage {
    pub rgba: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// The tray icon for `pending` open questions: the plain glyph at zero, a red badge with the
/// number (or "99+") otherwise.
pub fn render(pending: u32) -> BadgeImage {
    let mut canvas = Canvas::new(SIZE);
    canvas.glyph();
    if pending > 0 {
        let label = if pending > 99 {
            "99+".to_owned()
        } else {
            pending.to_string()
        };
        canvas.badge(&label);
    }
    BadgeImage {
        rgba: canvas.pixels,
        width: SIZE,
        height: SIZE,
    }
}

struct Canvas {
    size: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(size: u32) -> Canvas {
        Canvas {
            size,
            pixels: vec![0; (size * size * 4) as usize],
        }
    }

    fn put(&mut self, x: i32, y: i32, colour: [u8; 3]) {
        if x < 0 || y < 0 || x >= self.size as i32 || y >= self.size as i32 {
            return;
        }
        let i = ((y as u32 * self.size + x as u32) * 4) as usize;
        self.pixels[i..i + 3].copy_from_slice(&colour);
        self.pixels[i + 3] = 255;
    }

    fn rect(&mut self, x0: i32, y0: i32, x1: i32, y1: i32, colour: [u8; 3]) {
        for y in y0..y1 {
            for x in x0..x1 {
                self.put(x, y, colour);
            }
        }
    }

    /// The inbox tray on a rounded accent square (the app icon, simplified for small sizes).
    fn glyph(&mut self) {
        let s = self.size as i32;
        let r = s / 5;
        for y in 0..s {
            for x in 0..s {
                // Distance outside the inner rectangle decides the rounded corners.
                let dx = (r - x).max(x - (s - 1 - r)).max(0);
                let dy = (r - y).max(y - (s - 1 - r)).max(0);
                if dx * dx + dy * dy <= r * r {
                    self.put(x, y, ACCENT);
                }
            }
        }
        let stroke = (s / 12).max(2);
        let (left, right, top, bottom) = (s * 22 / 100, s * 78 / 100, s * 30 / 100, s * 74 / 100);
        self.rect(left, top, left + stroke, bottom + stroke, WHITE);
        self.rect(right - stroke, top, right, bottom + stroke, WHITE);
        self.rect(left, bottom, right, bottom + stroke, WHITE);
        let ledge = s * 56 / 100;
        // The notch in the ledge: a post down from each of its inner ends, joined at the bottom.
        let (notch_left, notch_right, notch_bottom) = (s * 40 / 100, s * 60 / 100, s * 64 / 100);
        self.rect(left, ledge, notch_left, ledge + stroke, WHITE);
        self.rect(notch_right, ledge, right, ledge + stroke, WHITE);
        for post in [notch_left, notch_right] {
            self.rect(
                post - stroke / 2,
                ledge,
                post + stroke / 2,
                notch_bottom,
                WHITE,
            );
        }
        self.rect(
            notch_left,
            notch_bottom - stroke / 2,
            notch_right,
            notch_bottom + stroke / 2,
            WHITE,
        );
    }

    /// A red pill in the top-right corner with `label` in white digits.
    fn badge(&mut self, label: &str) {
        let s = self.size as i32;
        let scale = s / 16; // one font pixel
        let glyph_w = 3 * scale;
        let gap = scale;
        let text_w = label.len() as i32 * (glyph_w + gap) - gap;
        let height = s * 9 / 16;
        let width = (text_w + 2 * scale * 2).max(height);
        let (x0, y0) = (s - width, 0);
        let radius = height / 2;
        for y in y0..y0 + height {
            for x in x0..x0 + width {
                // The pill's spine runs between the two end caps (a circle when narrow).
                let (left, right) = (x0 + radius, (x0 + width - 1 - radius).max(x0 + radius));
                let cx = x.clamp(left, right);
                let cy = y0 + radius;
                let (dx, dy) = (x - cx, y - cy);
                if dx * dx + dy * dy <= radius * radius {
                    self.put(x, y, BADGE);
                }
            }
        }
        let text_h = 5 * scale;
        let mut x = x0 + (width - text_w) / 2;
        let y = y0 + (height - text_h) / 2;
        for ch in label.chars() {
            for (row, bits) in font(ch).iter().enumerate() {
                for col in 0..3 {
                    if bits & (0b100 >> col) != 0 {
                        let px = x + col * scale;
                        let py = y + row as i32 * scale;
                        self.rect(px, py, px + scale, py + scale, WHITE);
                    }
                }
            }
            x += glyph_w + gap;
        }
    }
}

/// A 3×5 bitmap font for the badge: each row is three bits, the high bit on the left.
fn font(ch: char) -> [u8; 5] {
    match ch {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b010, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        '+' => [0b000, 0b010, 0b111, 0b010, 0b000],
        _ => [0; 5],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(img: &BadgeImage, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * img.width + x) * 4) as usize;
        img.rgba[i..i + 4].try_into().unwrap()
    }

    fn count_colour(img: &BadgeImage, colour: [u8; 3]) -> usize {
        img.rgba
            .chunks(4)
            .filter(|p| p[3] == 255 && p[..3] == colour)
            .count()
    }

    #[test]
    fn zero_pending_draws_no_badge() {
        let img = render(0);
        assert_eq!(img.rgba.len(), (SIZE * SIZE * 4) as usize);
        assert_eq!(count_colour(&img, BADGE), 0);
        // Corners stay transparent (rounded square); the centre is the accent colour.
        assert_eq!(pixel(&img, 0, 0)[3], 0);
        assert_eq!(pixel(&img, SIZE / 2, SIZE / 5), [37, 99, 235, 255]);
    }

    #[test]
    fn a_count_draws_a_red_badge_with_white_digits() {
        let img = render(7);
        assert!(count_colour(&img, BADGE) > 100, "badge is visible");
        // Just inside the pill's left end, level with its middle.
        assert_eq!(pixel(&img, SIZE - 33, SIZE * 9 / 32)[..3], BADGE);
        // The top bar of the "7", in white, centred on the badge.
        assert_eq!(pixel(&img, 41, 9)[..3], WHITE);
        assert_eq!(
            pixel(&render(1), 41, 9)[..3],
            BADGE,
            "a \"1\" has no bar there"
        );
    }

    #[test]
    fn different_counts_draw_different_images() {
        let images: Vec<_> = [1, 2, 8, 12, 99, 100, 5000].map(render).into();
        for (i, a) in images.iter().enumerate() {
            for b in &images[i + 1..] {
                if a.rgba == b.rgba {
                    // Only "more than 99" counts may share an image.
                    assert_eq!(a, &render(100));
                }
            }
        }
        assert_eq!(render(100), render(5000), "large counts all read 99+");
        assert_ne!(render(1), render(7));
    }
}
