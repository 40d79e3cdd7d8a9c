;; World-matrix propagation over a SceneNode store that lives in this module's memory: the WebAssembly twin of
;; propagateWorldMatrices in src/skeleton/sceneNodes.ts, the reference. The same operations in the same order, in
;; f64 (f32 loads promoted exactly), rounded to f32 only where the JavaScript rounds (Math.fround, the store), so
;; every result is the same bits in every engine: IEEE + - * and f32<->f64 conversions are exact or correctly
;; rounded, and WebAssembly never fuses a multiply and an add. No other instructions are used.
;;
;; Regenerate src/engine/propagateModule.ts after editing: node scripts/build-wasm.mjs
;; (test/engine/propagateWasm.test.ts fails while the committed module differs from this file).

(module
  ;; The store's memory, made by src/engine/wasmStore.ts for the plugin's capacity and never grown. The byte
  ;; offsets of the store's arrays in it (wasmStore.ts lays them out):
  (import "env" "memory" (memory 1))
  (import "env" "translation" (global $translation i32)) ;; f32 × 3 per entity
  (import "env" "rotation" (global $rotation i32)) ;; f32 × 4
  (import "env" "scale" (global $scale i32)) ;; f32 × 3
  (import "env" "parent" (global $parent i32)) ;; i32
  (import "env" "dirty" (global $dirty i32)) ;; u8
  (import "env" "changed" (global $changed i32)) ;; u8
  (import "env" "world" (global $world i32)) ;; f32 × 16
  (import "env" "order" (global $order i32)) ;; i32: the graph's parents-first order
  ;; i32 count of nodes refused in this step (the caller zeroes it), then maxRefused i32 node ids
  (import "env" "refused" (global $refusedAt i32))
  (import "env" "maxRefused" (global $maxRefused i32))

  ;; The pass over order[start, end): returns how many nodes it recomputed; counts refusals at $refusedAt.
  (func (export "pass") (param $start i32) (param $end i32) (result i32)
    (local $i i32) (local $e i32) (local $p i32) (local $recomputed i32) (local $refused i32)
    (local $o i32) (local $po i32)
    (local $x f64) (local $y f64) (local $z f64) (local $w f64)
    (local $x2 f64) (local $y2 f64) (local $z2 f64)
    (local $xx f64) (local $xy f64) (local $xz f64) (local $yy f64) (local $yz f64) (local $zz f64)
    (local $wx f64) (local $wy f64) (local $wz f64)
    (local $sx f64) (local $sy f64) (local $sz f64)
    (local $l00 f64) (local $l10 f64) (local $l20 f64)
    (local $l01 f64) (local $l11 f64) (local $l21 f64)
    (local $l02 f64) (local $l12 f64) (local $l22 f64)
    (local $tx f64) (local $ty f64) (local $tz f64)
    (local $p00 f64) (local $p10 f64) (local $p20 f64)
    (local $p01 f64) (local $p11 f64) (local $p21 f64)
    (local $p02 f64) (local $p12 f64) (local $p22 f64)
    (local $m0 f64) (local $m1 f64) (local $m2 f64)
    (local $m4 f64) (local $m5 f64) (local $m6 f64)
    (local $m8 f64) (local $m9 f64) (local $m10 f64)
    (local $m12 f64) (local $m13 f64) (local $m14 f64)
    (local $f0 f32) (local $f1 f32) (local $f2 f32)
    (local $f4 f32) (local $f5 f32) (local $f6 f32)
    (local $f8 f32) (local $f9 f32) (local $f10 f32)
    (local $f12 f32) (local $f13 f32) (local $f14 f32)
    (local $sum f64)
    (local.set $refused (i32.load (global.get $refusedAt)))
    (local.set $i (local.get $start))
    (block $done
      (br_if $done (i32.ge_s (local.get $i) (local.get $end)))
      (loop $nodes
        (block $next
          (local.set $e (i32.load (i32.add (global.get $order) (i32.shl (local.get $i) (i32.const 2)))))
          (local.set $p (i32.load (i32.add (global.get $parent) (i32.shl (local.get $e) (i32.const 2)))))
          ;; Neither dirty nor under a recomputed parent: unchanged.
          (if (i32.eqz (i32.or (i32.load8_u (i32.add (global.get $dirty) (local.get $e)))
                               (i32.load8_u (i32.add (global.get $changed) (local.get $p)))))
            (then
              (i32.store8 (i32.add (global.get $changed) (local.get $e)) (i32.const 0))
              (br $next)))
          ;; T·R·S (composeMatrix's formulas).
          (local.set $o (i32.add (global.get $rotation) (i32.shl (local.get $e) (i32.const 4))))
          (local.set $x (f64.promote_f32 (f32.load offset=0 (local.get $o))))
          (local.set $y (f64.promote_f32 (f32.load offset=4 (local.get $o))))
          (local.set $z (f64.promote_f32 (f32.load offset=8 (local.get $o))))
          (local.set $w (f64.promote_f32 (f32.load offset=12 (local.get $o))))
          (local.set $x2 (f64.add (local.get $x) (local.get $x)))
          (local.set $y2 (f64.add (local.get $y) (local.get $y)))
          (local.set $z2 (f64.add (local.get $z) (local.get $z)))
          (local.set $xx (f64.mul (local.get $x) (local.get $x2)))
          (local.set $xy (f64.mul (local.get $x) (local.get $y2)))
          (local.set $xz (f64.mul (local.get $x) (local.get $z2)))
          (local.set $yy (f64.mul (local.get $y) (local.get $y2)))
          (local.set $yz (f64.mul (local.get $y) (local.get $z2)))
          (local.set $zz (f64.mul (local.get $z) (local.get $z2)))
          (local.set $wx (f64.mul (local.get $w) (local.get $x2)))
          (local.set $wy (f64.mul (local.get $w) (local.get $y2)))
          (local.set $wz (f64.mul (local.get $w) (local.get $z2)))
          (local.set $o (i32.add (global.get $scale) (i32.mul (local.get $e) (i32.const 12))))
          (local.set $sx (f64.promote_f32 (f32.load offset=0 (local.get $o))))
          (local.set $sy (f64.promote_f32 (f32.load offset=4 (local.get $o))))
          (local.set $sz (f64.promote_f32 (f32.load offset=8 (local.get $o))))
          (local.set $l00 (f64.mul (f64.sub (f64.const 1) (f64.add (local.get $yy) (local.get $zz))) (local.get $sx)))
          (local.set $l10 (f64.mul (f64.add (local.get $xy) (local.get $wz)) (local.get $sx)))
          (local.set $l20 (f64.mul (f64.sub (local.get $xz) (local.get $wy)) (local.get $sx)))
          (local.set $l01 (f64.mul (f64.sub (local.get $xy) (local.get $wz)) (local.get $sy)))
          (local.set $l11 (f64.mul (f64.sub (f64.const 1) (f64.add (local.get $xx) (local.get $zz))) (local.get $sy)))
          (local.set $l21 (f64.mul (f64.add (local.get $yz) (local.get $wx)) (local.get $sy)))
          (local.set $l02 (f64.mul (f64.add (local.get $xz) (local.get $wy)) (local.get $sz)))
          (local.set $l12 (f64.mul (f64.sub (local.get $yz) (local.get $wx)) (local.get $sz)))
          (local.set $l22 (f64.mul (f64.sub (f64.const 1) (f64.add (local.get $xx) (local.get $yy))) (local.get $sz)))
          (local.set $o (i32.add (global.get $translation) (i32.mul (local.get $e) (i32.const 12))))
          (local.set $tx (f64.promote_f32 (f32.load offset=0 (local.get $o))))
          (local.set $ty (f64.promote_f32 (f32.load offset=4 (local.get $o))))
          (local.set $tz (f64.promote_f32 (f32.load offset=8 (local.get $o))))
          (if (i32.eqz (local.get $p))
            (then
              ;; A root: world = T·R·S.
              (local.set $m0 (local.get $l00))
              (local.set $m1 (local.get $l10))
              (local.set $m2 (local.get $l20))
              (local.set $m4 (local.get $l01))
              (local.set $m5 (local.get $l11))
              (local.set $m6 (local.get $l21))
              (local.set $m8 (local.get $l02))
              (local.set $m9 (local.get $l12))
              (local.set $m10 (local.get $l22))
              (local.set $m12 (local.get $tx))
              (local.set $m13 (local.get $ty))
              (local.set $m14 (local.get $tz)))
            (else
              ;; world = parentWorld · T·R·S, the parent affine (multiplyMatrices' sums, left to right).
              (local.set $po (i32.add (global.get $world) (i32.shl (local.get $p) (i32.const 6))))
              (local.set $p00 (f64.promote_f32 (f32.load offset=0 (local.get $po))))
              (local.set $p10 (f64.promote_f32 (f32.load offset=4 (local.get $po))))
              (local.set $p20 (f64.promote_f32 (f32.load offset=8 (local.get $po))))
              (local.set $p01 (f64.promote_f32 (f32.load offset=16 (local.get $po))))
              (local.set $p11 (f64.promote_f32 (f32.load offset=20 (local.get $po))))
              (local.set $p21 (f64.promote_f32 (f32.load offset=24 (local.get $po))))
              (local.set $p02 (f64.promote_f32 (f32.load offset=32 (local.get $po))))
              (local.set $p12 (f64.promote_f32 (f32.load offset=36 (local.get $po))))
              (local.set $p22 (f64.promote_f32 (f32.load offset=40 (local.get $po))))
              (local.set $m0 (f64.add (f64.add (f64.mul (local.get $p00) (local.get $l00))
                                               (f64.mul (local.get $p01) (local.get $l10)))
                                      (f64.mul (local.get $p02) (local.get $l20))))
              (local.set $m1 (f64.add (f64.add (f64.mul (local.get $p10) (local.get $l00))
                                               (f64.mul (local.get $p11) (local.get $l10)))
                                      (f64.mul (local.get $p12) (local.get $l20))))
              (local.set $m2 (f64.add (f64.add (f64.mul (local.get $p20) (local.get $l00))
                                               (f64.mul (local.get $p21) (local.get $l10)))
                                      (f64.mul (local.get $p22) (local.get $l20))))
              (local.set $m4 (f64.add (f64.add (f64.mul (local.get $p00) (local.get $l01))
                                               (f64.mul (local.get $p01) (local.get $l11)))
                                      (f64.mul (local.get $p02) (local.get $l21))))
              (local.set $m5 (f64.add (f64.add (f64.mul (local.get $p10) (local.get $l01))
                                               (f64.mul (local.get $p11) (local.get $l11)))
                                      (f64.mul (local.get $p12) (local.get $l21))))
              (local.set $m6 (f64.add (f64.add (f64.mul (local.get $p20) (local.get $l01))
                                               (f64.mul (local.get $p21) (local.get $l11)))
                                      (f64.mul (local.get $p22) (local.get $l21))))
              (local.set $m8 (f64.add (f64.add (f64.mul (local.get $p00) (local.get $l02))
                                               (f64.mul (local.get $p01) (local.get $l12)))
                                      (f64.mul (local.get $p02) (local.get $l22))))
              (local.set $m9 (f64.add (f64.add (f64.mul (local.get $p10) (local.get $l02))
                                               (f64.mul (local.get $p11) (local.get $l12)))
                                      (f64.mul (local.get $p12) (local.get $l22))))
              (local.set $m10 (f64.add (f64.add (f64.mul (local.get $p20) (local.get $l02))
                                                (f64.mul (local.get $p21) (local.get $l12)))
                                       (f64.mul (local.get $p22) (local.get $l22))))
              (local.set $m12 (f64.add (f64.add (f64.add (f64.mul (local.get $p00) (local.get $tx))
                                                         (f64.mul (local.get $p01) (local.get $ty)))
                                                (f64.mul (local.get $p02) (local.get $tz)))
                                       (f64.promote_f32 (f32.load offset=48 (local.get $po)))))
              (local.set $m13 (f64.add (f64.add (f64.add (f64.mul (local.get $p10) (local.get $tx))
                                                         (f64.mul (local.get $p11) (local.get $ty)))
                                                (f64.mul (local.get $p12) (local.get $tz)))
                                       (f64.promote_f32 (f32.load offset=52 (local.get $po)))))
              (local.set $m14 (f64.add (f64.add (f64.add (f64.mul (local.get $p20) (local.get $tx))
                                                         (f64.mul (local.get $p21) (local.get $ty)))
                                                (f64.mul (local.get $p22) (local.get $tz)))
                                       (f64.promote_f32 (f32.load offset=56 (local.get $po)))))))
          ;; Each element rounded to f32 as the store rounds it; the guard sums them (the JavaScript's tree): a
          ;; NaN or ±∞ among them makes the sum NaN or ±∞, and twelve finite f32 values sum finite in f64.
          (local.set $f0 (f32.demote_f64 (local.get $m0)))
          (local.set $f1 (f32.demote_f64 (local.get $m1)))
          (local.set $f2 (f32.demote_f64 (local.get $m2)))
          (local.set $f4 (f32.demote_f64 (local.get $m4)))
          (local.set $f5 (f32.demote_f64 (local.get $m5)))
          (local.set $f6 (f32.demote_f64 (local.get $m6)))
          (local.set $f8 (f32.demote_f64 (local.get $m8)))
          (local.set $f9 (f32.demote_f64 (local.get $m9)))
          (local.set $f10 (f32.demote_f64 (local.get $m10)))
          (local.set $f12 (f32.demote_f64 (local.get $m12)))
          (local.set $f13 (f32.demote_f64 (local.get $m13)))
          (local.set $f14 (f32.demote_f64 (local.get $m14)))
          (local.set $sum
            (f64.add
              (f64.add
                (f64.add
                  (f64.add (f64.promote_f32 (local.get $f0)) (f64.promote_f32 (local.get $f1)))
                  (f64.add (f64.promote_f32 (local.get $f2)) (f64.promote_f32 (local.get $f4))))
                (f64.add
                  (f64.add (f64.promote_f32 (local.get $f5)) (f64.promote_f32 (local.get $f6)))
                  (f64.add (f64.promote_f32 (local.get $f8)) (f64.promote_f32 (local.get $f9)))))
              (f64.add
                (f64.add (f64.promote_f32 (local.get $f10)) (f64.promote_f32 (local.get $f12)))
                (f64.add (f64.promote_f32 (local.get $f13)) (f64.promote_f32 (local.get $f14))))))
          (if (f64.ne (f64.sub (local.get $sum) (local.get $sum)) (f64.const 0))
            (then
              ;; Refused: keeps its last world matrix; listed (the first maxRefused) and counted.
              (if (i32.lt_s (local.get $refused) (global.get $maxRefused))
                (then
                  (i32.store offset=4
                    (i32.add (global.get $refusedAt) (i32.shl (local.get $refused) (i32.const 2)))
                    (local.get $e))))
              (local.set $refused (i32.add (local.get $refused) (i32.const 1)))
              (i32.store8 (i32.add (global.get $dirty) (local.get $e)) (i32.const 0))
              (i32.store8 (i32.add (global.get $changed) (local.get $e)) (i32.const 0))
              (br $next)))
          ;; The 12 affine elements (the last row, 0 0 0 1, was written when the node was added).
          (local.set $o (i32.add (global.get $world) (i32.shl (local.get $e) (i32.const 6))))
          (f32.store offset=0 (local.get $o) (local.get $f0))
          (f32.store offset=4 (local.get $o) (local.get $f1))
          (f32.store offset=8 (local.get $o) (local.get $f2))
          (f32.store offset=16 (local.get $o) (local.get $f4))
          (f32.store offset=20 (local.get $o) (local.get $f5))
          (f32.store offset=24 (local.get $o) (local.get $f6))
          (f32.store offset=32 (local.get $o) (local.get $f8))
          (f32.store offset=36 (local.get $o) (local.get $f9))
          (f32.store offset=40 (local.get $o) (local.get $f10))
          (f32.store offset=48 (local.get $o) (local.get $f12))
          (f32.store offset=52 (local.get $o) (local.get $f13))
          (f32.store offset=56 (local.get $o) (local.get $f14))
          (i32.store8 (i32.add (global.get $dirty) (local.get $e)) (i32.const 0))
          (i32.store8 (i32.add (global.get $changed) (local.get $e)) (i32.const 1))
          (local.set $recomputed (i32.add (local.get $recomputed) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $nodes (i32.lt_s (local.get $i) (local.get $end)))))
    (i32.store (global.get $refusedAt) (local.get $refused))
    (local.get $recomputed)))
