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
//   host's doing: a report at another width than the host last saw starts the count again, and so
//   does a report the block measured at another width than its frame has now (the host resized
//   the frame while the report was on its way: a loaded machine's reports lag a drag). A
//   width the page took in answer to a height applied here (a scrollbar that came or went:
//   `laidOut`) is no such change, so a block tall in a wide frame and short in a narrow one
//   still cannot keep the page's scrollbar coming and going.
export function heightController({
  min = LIMITS.heightMin, max = LIMITS.heightMax, jitter = LIMITS.heightJitter, loopLimit = LIMITS.heightLoopLimit,
  now = () => performance.now(),
} = {}) {
  let applied = null;
  let last = null;
  let follows = 0;
  let frozen = null;
  let direction = 0;
  let reversals = [];
  let knownWidth; // as of the last report, or as the page laid the frame out after the last height applied
  return {
    get frozen() { return frozen; },
    get height() { return applied; },
    // Returns the new height to apply, or null to leave it; `frozen` tells why it stopped.
    // `width`: the frame's width as the host sees it now; `measured`: the width the block measured
    // it at (its innerWidth; undefined: not known).
    report(height, viewport, width, measured) {
      if (frozen) return null;
      // A frame with no viewport has not been sized yet (Chromium sizes a sandboxed frame in its
      // own process, later): what it measures is not the block's height.
      if (viewport === 0) return null;
      if ((width !== undefined && knownWidth !== undefined && width !== knownWidth) ||
        (width !== undefined && measured !== undefined && Math.abs(width - measured) > 1)) { reversals = []; direction = 0; }
      if (width !== undefined) knownWidth = width;
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
  };
}
