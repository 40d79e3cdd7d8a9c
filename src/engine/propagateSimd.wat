;; propagate.wat's pass in f64x2 lanes: the same imports, layout, flags and refusals, and the same bits. Each
;; element is the same IEEE double operations on the same operands in the same order as propagateWorldMatrices
;; (src/skeleton/sceneNodes.ts) computes it, two elements to a vector, rounded to f32 once for the store; the
;; lanes only pair independent sums. Exact rewrites used (each the same result in every case, ±0 included):
;; a − b as a + (−b) (the sign flipped by xor), a·b as b·a, a·1 = a, and a + (−0) = a for the one lane of a
;; vector add that has nothing to add. No relaxed-SIMD, no fused multiply-add, no reductions across lanes: every
;; engine gives these bits. NaNs (whose payloads lanes may not keep) are only ever refused, never stored.
;;
;; Regenerate src/engine/propagateSimdModule.ts after editing: node scripts/build-wasm.mjs
;; (test/engine/propagate.test.ts fails while a committed module differs from its source).

(module
  (import "env" "memory" (memory 1))
  (import "env" "translation" (global $translation i32))
  (import "env" "rotation" (global $rotation i32))
  (import "env" "scale" (global $scale i32))
  (import "env" "parent" (global $parent i32))
  (import "env" "dirty" (global $dirty i32))
  (import "env" "changed" (global $changed i32))
  (import "env" "world" (global $world i32))
  (import "env" "order" (global $order i32))
  (import "env" "refused" (global $refusedAt i32))
  (import "env" "maxRefused" (global $maxRefused i32))

  (func (export "pass") (param $start i32) (param $end i32) (result i32)
    (local $i i32) (local $e i32) (local $p i32) (local $recomputed i32) (local $refused i32)
    (local $o i32) (local $po i32)
    ;; #include propagateNode.wat locals
    (local.set $refused (i32.load (global.get $refusedAt)))
    (local.set $i (local.get $start))
    (block $done
      (br_if $done (i32.ge_s (local.get $i) (local.get $end)))
      (loop $nodes
        (block $next
          (local.set $e (i32.load (i32.add (global.get $order) (i32.shl (local.get $i) (i32.const 2)))))
          ;; #include propagateNode.wat check
          ;; #include propagateNode.wat load
          ;; #include propagateNode.wat matrix
          )
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $nodes (i32.lt_s (local.get $i) (local.get $end)))))
    (i32.store (global.get $refusedAt) (local.get $refused))
    (local.get $recomputed)))
