// Auto-height: the frame's height from the block's height reports.

import { LIMITS } from '../contract.js';

// Decides the frame's height from the block's reports; never oscillates (see PROTOCOL.md):
// * bounds: [min, max]; a report from a frame with a zero viewport is ignored;
// * shrinking by at most `jitter` px is ignored (1 px jitter settles);
// * content that grows exactly as its frame grows (height: 100vh and the like) is detected
//   after `loopLimit` such steps and the height is frozen;
// * three changes of direction within a second at one frame width (content that is tall in a
//   short frame and short in a tall one) freeze the height at the larger value. A user toggling
//   an accordion changes direction far more slowly, and keeps working; a frame the host page
//   made narrower or wider (a window dragged to and fro) changes its content's height by the
//   host's doing: for `settleMs` after the host saw the frame's width change (a report at
//   another width than it last saw, or `resized`: the host's window resized) the
//   changes of direction are not counted, so the reports a loaded machine delivers in a burst
//   after a drag, measured at the old widths and the new in turn, freeze nothing. Only the
//   host's sight of its frame counts, never the width a block says it measured (a block could
//   name a made-up width in every report and never be frozen). A width the page took in answer
//   to a height applied here (a scrollbar that came or went: `laidOut`) is no such change, so a
//   block tall in a wide frame and short in a narrow one still cannot keep the page's scrollbar
//   coming and going.
export function heightController({
  min = LIMITS.heightMin, max = LIMITS.heightMax, jitter = LIMITS.heightJitter, loopLimit = LIMITS.heightLoopLimit,
  settleMs = LIMITS.heightSettleMs, now = () => performance.now(),
} = {}) {
  let applied = null;
  let last = null;
  let follows = 0;
  let frozen = null;
  let direction = 0;
  let reversals = [];
  let knownWidth; // as of the last report, or as the page laid the frame out after the last height applied
  let widthChanged = -Infinity; // when the host last saw the frame's width change
  function seeWidth(width) {
    if (width === undefined) return;
    if (knownWidth !== undefined && width !== knownWidth) widthChanged = now();
    knownWidth = width;
  }
  return {
    get frozen() { return frozen; },
    get height() { return applied; },
    // Returns the new height to apply, or null to leave it; `frozen` tells why it stopped.
    // `width`: the frame's width as the host sees it now.
    report(height, viewport, width) {
      if (frozen) return null;
      // A frame with no viewport has not been sized yet (Chromium sizes a sandboxed frame in its
      // own process, later): what it measures is not the block's height.
      if (viewport === 0) return null;
      seeWidth(width);
      if (now() - widthChanged < settleMs) { reversals = []; direction = 0; }
      const target = Math.min(max, Math.max(min, Math.ceil(height)));
      const prev = last;
      last = { height, viewport };
      if (prev && viewport !== undefined && prev.viewport !== undefined && viewport !== prev.viewport &&
        height - prev.height === viewport - prev.viewport && height > viewport) {
        follows += 1;
        if (follows >= loopLimit) { frozen = 'grows-with-frame'; return null; }
      } else if (prev) {
        follows = 0;
      }
      if (applied === null) { applied = target; return target; }
      if (target === applied) return null;
      if (target < applied && applied - target <= jitter) return null;
      const dir = Math.sign(target - applied);
      if (direction && dir !== direction) {
        const t = now();
        reversals = reversals.filter((r) => t - r < 1000);
        reversals.push(t);
        if (reversals.length >= 3) {
          frozen = 'oscillates';
          if (target <= applied) return null;
          applied = target;
          return target;
        }
      }
      direction = dir;
      applied = target;
      return target;
    },
    // The frame's width once the height `report` returned is applied and laid out.
    laidOut(width) { knownWidth = width; },
    // The frame's width after the host's window was resized (a drag).
    resized(width) { seeWidth(width); },
  };
}
