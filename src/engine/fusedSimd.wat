;; The fused pass of one playing character (src/engine/fused.ts: its plan of a clip) in
;; WebAssembly, over the kernel memory that holds the scene store, the pose pool and the clips' keys
;; (wasmKernels.ts): joint by joint, parents first, the joint's channels sampled into its ANIM pose, the pose
;; written into the joint's SceneNode local where it changed, and its world matrix made (propagateNode.wat, the
;; propagation pass's own code). The same IEEE double operations on the same operands in the same order as
;; the three systems, so the same bits (test/systems/fusedCharacters.test.ts); the slerp's two weighted sums go two
;; components to an f64x2, which pairs independent sums only. No relaxed-SIMD, no fused multiply-add.
;;
;; The caller locates the clip's time tracks first (systems/fusedCharacters.ts, which moves the key cursors):
;; trackK[t] the key, trackOn[t] 1 when between keys k and k+1, trackU[t] the position in [0, 1) between them.
;;
;; A plan (wasmFused.ts placeFusedPlan) is an i32 count of channels, then from byte 16 a record of 32 bytes per
;; channel that drives a joint's path (the last of a clip's channels on it), in joint order:
;;   +0 kind (0 STEP, 1 LINEAR, 2 LINEAR rotation by slerp)   +4 components   +8 time track
;;   +12 the channel's values (f32)   +16 its segment 0 in the track's slerp segments (f64)
;;   +20 bytes from one segment to the next   +24 where it goes: byte offset in the character's ANIM pose
;;
;; Two walks over the character's joints: the samples first, then each joint written out and its world matrix
;; made. One walk doing both per joint ran slower: each joint waited on its sample's long chain of dependent
;; operations before its matrix could start.
;;
;; Regenerate src/engine/fusedSimdModule.ts after editing: node scripts/build-wasm.mjs.

(module
  (import "env" "memory" (memory 1))
  (import "env" "translation" (global $translation i32))
  (import "env" "rotation" (global $rotation i32))
  (import "env" "scale" (global $scale i32))
  (import "env" "parent" (global $parent i32))
  (import "env" "dirty" (global $dirty i32))
  (import "env" "changed" (global $changed i32))
  (import "env" "world" (global $world i32))
  (import "env" "refused" (global $refusedAt i32))
  (import "env" "maxRefused" (global $maxRefused i32))
  (import "env" "trackK" (global $trackK i32))
  (import "env" "trackU" (global $trackU i32))
  (import "env" "trackOn" (global $trackOn i32))
  (import "env" "fusedOut" (global $fusedOut i32))
  (import "env" "arcSeries" (global $arc i32))
  (import "env" "trackK2" (global $trackK2 i32))
  (import "env" "trackU2" (global $trackU2 i32))
  (import "env" "trackOn2" (global $trackOn2 i32))
  (import "env" "fadeWeight" (global $fadeWeight i32))
  (import "env" "fadeSeries" (global $fadeSeries i32))
  (import "env" "fadePaths" (global $fadePaths i32))

  ;; The channels of the plan at `table` sampled into the pose at byte `anim`, their tracks located in the
  ;; arrays at `tk`, `tu`, `ton` (sampleList's kernels: each channel's key k, or lerp / slerp between k and k+1).
  (func $sample (param $table i32) (param $anim i32) (param $tk i32) (param $tu i32) (param $ton i32)
    (local $o i32) (local $rec i32) (local $end i32) (local $kind i32) (local $cc i32) (local $tr i32)
    (local $k i32) (local $src i32) (local $dst i32)
    (local $u f64) (local $theta f64) (local $weight f64) (local $y f64) (local $q f64)
    ;; f64x2 (for key k, for key k+1): x = ((1 − u)θ, uθ), z = x², the series p, the weights s = (s0, s1);
    ;; a, b: s0 and s1 in both lanes; the sums xy, zw
    (local $x v128) (local $z v128) (local $pp v128) (local $sw v128)
    (local $a v128) (local $b v128) (local $xy v128) (local $zw v128)
    ;; The samples: each channel's key k, or lerp / slerp between keys k and k+1 (sampleList's kernels).
    (local.set $rec (i32.add (local.get $table) (i32.const 16)))
    (local.set $end (i32.add (local.get $rec) (i32.shl (i32.load (local.get $table)) (i32.const 5))))
    (block $sampledAll
      (br_if $sampledAll (i32.ge_u (local.get $rec) (local.get $end)))
      (loop $channels
        (block $sampled
          (local.set $kind (i32.load (local.get $rec)))
          (local.set $cc (i32.load offset=4 (local.get $rec)))
          (local.set $tr (i32.shl (i32.load offset=8 (local.get $rec)) (i32.const 2)))
          (local.set $k (i32.load (i32.add (local.get $tk) (local.get $tr))))
          (local.set $dst (i32.add (local.get $anim) (i32.load offset=24 (local.get $rec))))
          (local.set $src (i32.add (i32.load offset=12 (local.get $rec))
            (i32.shl (i32.mul (local.get $k) (local.get $cc)) (i32.const 2))))
          (if (i32.or (i32.eqz (local.get $kind))
                      (i32.eqz (i32.load (i32.add (local.get $ton) (local.get $tr)))))
            (then
              ;; On a key (or STEP): key k's values, as they are.
              (if (i32.eq (local.get $cc) (i32.const 4))
                (then (v128.store (local.get $dst) (v128.load (local.get $src))))
                (else
                  (i64.store (local.get $dst) (i64.load (local.get $src)))
                  (i32.store offset=8 (local.get $dst) (i32.load offset=8 (local.get $src)))))
              (br $sampled)))
          (local.set $u (f64.load (i32.add (local.get $tu) (i32.shl (local.get $tr) (i32.const 1)))))
          (if (i32.eq (local.get $kind) (i32.const 1))
            (then
              ;; LINEAR (three components: translation, scale): a + (b − a)·u.
              (local.set $x (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $src))))
              (local.set $z (f64x2.promote_low_f32x4 (v128.load64_zero offset=12 (local.get $src))))
              (local.set $x (f64x2.add (local.get $x)
                (f64x2.mul (f64x2.sub (local.get $z) (local.get $x)) (f64x2.splat (local.get $u)))))
              (v128.store64_lane 0 (local.get $dst) (f32x4.demote_f64x2_zero (local.get $x)))
              (local.set $y (f64.promote_f32 (f32.load offset=8 (local.get $src))))
              (f32.store offset=8 (local.get $dst) (f32.demote_f64 (f64.add (local.get $y)
                (f64.mul (f64.sub (f64.promote_f32 (f32.load offset=20 (local.get $src))) (local.get $y))
                  (local.get $u)))))
              (br $sampled)))
          ;; The slerp of segment k: θ, the weight 1/sin θ (or the nlerp's), the two aligned keys.
          (local.set $src (i32.add (i32.load offset=16 (local.get $rec))
            (i32.mul (local.get $k) (i32.load offset=20 (local.get $rec)))))
          (local.set $theta (f64.load (local.get $src)))
          (local.set $weight (f64.load offset=8 (local.get $src)))
          (if (f64.lt (local.get $theta) (f64.const 0))
            (then
              ;; The nlerp: l0 = 1 − u, e = 2·u·l0·(1 + θ), inv = (1 + e(0.5 + e(0.375 + e·0.3125)))·weight,
              ;; s = (l0, u)·inv.
              (local.set $y (f64.sub (f64.const 1) (local.get $u)))
              (local.set $q (f64.mul (f64.mul (f64.mul (f64.const 2) (local.get $u)) (local.get $y))
                (f64.add (f64.const 1) (local.get $theta))))
              (local.set $q (f64.mul
                (f64.add (f64.const 1) (f64.mul (local.get $q)
                  (f64.add (f64.const 0.5) (f64.mul (local.get $q)
                    (f64.add (f64.const 0.375) (f64.mul (local.get $q) (f64.const 0.3125)))))))
                (local.get $weight)))
              (local.set $sw (f64x2.mul
                (f64x2.replace_lane 1 (f64x2.splat (local.get $y)) (local.get $u)) (f64x2.splat (local.get $q)))))
            (else
              (local.set $x (f64x2.mul
                (f64x2.replace_lane 1 (f64x2.splat (f64.sub (f64.const 1) (local.get $u))) (local.get $u))
                (f64x2.splat (local.get $theta))))
              (if (f64.le (local.get $theta) (f64.const 0.25))
                (then
                  ;; sin x = x + x·z·(S3 + z(S5 + z(S7 + z(S9 + z·S11)))), z = x², both ends in lanes.
                  (local.set $z (f64x2.mul (local.get $x) (local.get $x)))
                  (local.set $pp (f64x2.add (v128.const f64x2 0x1.71de3a556c734p-19 0x1.71de3a556c734p-19)
                    (f64x2.mul (local.get $z) (v128.const f64x2 -0x1.ae64567f544e4p-26 -0x1.ae64567f544e4p-26))))
                  (local.set $pp (f64x2.add (v128.const f64x2 -0x1.a01a01a01a01ap-13 -0x1.a01a01a01a01ap-13)
                    (f64x2.mul (local.get $z) (local.get $pp))))
                  (local.set $pp (f64x2.add (v128.const f64x2 0x1.1111111111111p-7 0x1.1111111111111p-7)
                    (f64x2.mul (local.get $z) (local.get $pp))))
                  (local.set $pp (f64x2.add (v128.const f64x2 -0x1.5555555555555p-3 -0x1.5555555555555p-3)
                    (f64x2.mul (local.get $z) (local.get $pp)))))
                (else
                  ;; The long arc: y = π − x + π_lo past π/2, sin y by ARC_SERIES (Horner, 10 terms).
                  (local.set $y (f64x2.extract_lane 0 (local.get $x)))
                  (if (f64.gt (local.get $y) (f64.const 0x1.921fb54442d18p0))
                    (then (local.set $x (f64x2.replace_lane 0 (local.get $x)
                      (f64.add (f64.sub (f64.const 0x1.921fb54442d18p1) (local.get $y))
                        (f64.const 0x1.1a62633145c07p-53))))))
                  (local.set $y (f64x2.extract_lane 1 (local.get $x)))
                  (if (f64.gt (local.get $y) (f64.const 0x1.921fb54442d18p0))
                    (then (local.set $x (f64x2.replace_lane 1 (local.get $x)
                      (f64.add (f64.sub (f64.const 0x1.921fb54442d18p1) (local.get $y))
                        (f64.const 0x1.1a62633145c07p-53))))))
                  (local.set $z (f64x2.mul (local.get $x) (local.get $x)))
                  (local.set $pp (v128.load64_splat offset=72 (global.get $arc)))
                  (local.set $o (i32.const 64))
                  (loop $horner
                    (local.set $pp (f64x2.add (v128.load64_splat (i32.add (global.get $arc) (local.get $o)))
                      (f64x2.mul (local.get $z) (local.get $pp))))
                    (local.set $o (i32.sub (local.get $o) (i32.const 8)))
                    (br_if $horner (i32.ge_s (local.get $o) (i32.const 0))))))
              (local.set $sw (f64x2.mul
                (f64x2.add (local.get $x) (f64x2.mul (f64x2.mul (local.get $x) (local.get $z)) (local.get $pp)))
                (f64x2.splat (local.get $weight))))))
          ;; s0·a + s1·b for the four components, two to a vector, each rounded to f32 for the pose.
          (local.set $a (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $sw) (local.get $sw)))
          (local.set $b (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $sw) (local.get $sw)))
          (local.set $xy (f64x2.add
            (f64x2.mul (local.get $a) (v128.load offset=16 (local.get $src)))
            (f64x2.mul (local.get $b) (v128.load offset=48 (local.get $src)))))
          (local.set $zw (f64x2.add
            (f64x2.mul (local.get $a) (v128.load offset=32 (local.get $src)))
            (f64x2.mul (local.get $b) (v128.load offset=64 (local.get $src)))))
          (v128.store (local.get $dst) (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (local.get $xy)) (f32x4.demote_f64x2_zero (local.get $zw)))))
        (local.set $rec (i32.add (local.get $rec) (i32.const 32)))
        (br_if $channels (i32.lt_u (local.get $rec) (local.get $end))))))

  ;; `n` joints of the ANIM pose at byte `anim` (joint node ids, i32, at byte `jn`) written out where they changed
  ;; and their world matrices made, parents first. Returns the nodes recomputed; joints whose pose was not finite
  ;; (not written) are counted at fusedOut.
  (func $joints (param $n i32) (param $anim i32) (param $jn i32) (result i32)
    (local $e i32) (local $p i32) (local $o i32) (local $po i32) (local $recomputed i32) (local $refused i32)
    (local $j i32) (local $src i32) (local $rejected i32) (local $pose i32)
    ;; the pose's rows: (tx ty tz rx), (rx ry rz rw), (rw sx sy sz); the finite check's lanes
    (local $x v128) (local $z v128) (local $pp v128) (local $sw v128)
    ;; the joint's translation and scale rows in the store as they were (16 bytes: the next value's first float),
    ;; and whether the write-out wrote the joint
    (local $ot v128) (local $os v128) (local $written i32)
    ;; #include propagateNode.wat locals
    (local.set $refused (i32.load (global.get $refusedAt)))
    ;; Each joint written out where it changed and its world matrix made, parents first.
    (block $done
      (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
      (loop $joints
        (local.set $pose (i32.add (local.get $anim) (i32.mul (local.get $j) (i32.const 40))))
        (local.set $e (i32.load (i32.add (local.get $jn) (i32.shl (local.get $j) (i32.const 2)))))
        ;; The write-out (poseWriter.ts): only changed values mark the node dirty, and a pose with a value not
        ;; finite is not written (where poseWriter's sum of the ten is not finite: exactly then).
        (local.set $o (i32.add (global.get $translation) (i32.mul (local.get $e) (i32.const 12))))
        (local.set $po (i32.add (global.get $scale) (i32.mul (local.get $e) (i32.const 12))))
        (local.set $src (i32.add (global.get $rotation) (i32.shl (local.get $e) (i32.const 4))))
        (local.set $x (v128.load (local.get $pose)))
        (local.set $z (v128.load offset=12 (local.get $pose)))
        (local.set $pp (v128.load offset=24 (local.get $pose)))
        (local.set $ot (v128.load (local.get $o)))
        (local.set $os (v128.load (local.get $po)))
        (local.set $written (i32.const 0))
        ;; Compared lane by lane: (tx ty tz ·) with the translation, (rx ry rz rw) with the rotation, (· sx sy sz)
        ;; with the scale (the lanes marked · hold another path's value, masked out).
        (if (v128.any_true (v128.or
              (v128.or
                (v128.and (f32x4.ne (local.get $x) (local.get $ot)) (v128.const i32x4 -1 -1 -1 0))
                (f32x4.ne (local.get $z) (v128.load (local.get $src))))
              (v128.and
                (f32x4.ne (local.get $pp) (i8x16.shuffle 0 1 2 3 16 17 18 19 20 21 22 23 24 25 26 27
                  (local.get $pp) (local.get $os)))
                (v128.const i32x4 0 -1 -1 -1))))
          (then
            ;; Lanes: translation (3) and rotation x; rotation (4); rotation w and scale (3).
            (local.set $sw (f32x4.add (f32x4.add
              (f32x4.sub (local.get $x) (local.get $x)) (f32x4.sub (local.get $z) (local.get $z)))
              (f32x4.sub (local.get $pp) (local.get $pp))))
            (if (i32x4.all_true (f32x4.eq (local.get $sw) (local.get $sw)))
              (then
                (i64.store (local.get $o) (i64.load (local.get $pose)))
                (i32.store offset=8 (local.get $o) (i32.load offset=8 (local.get $pose)))
                (v128.store (local.get $src) (local.get $z))
                (i64.store (local.get $po) (i64.load offset=28 (local.get $pose)))
                (i32.store offset=8 (local.get $po) (i32.load offset=36 (local.get $pose)))
                (local.set $written (i32.const 1))
                (i32.store8 (i32.add (global.get $dirty) (local.get $e)) (i32.const 1)))
              (else (local.set $rejected (i32.add (local.get $rejected) (i32.const 1)))))))
        ;; The world matrix as the propagation pass makes it.
        (block $next
          ;; #include propagateNode.wat check
          (if (local.get $written)
            (then
              ;; The rows just written, from the registers that wrote them (lanes past the path unused).
              (local.set $a (local.get $z))
              (local.set $s (i8x16.shuffle 4 5 6 7 8 9 10 11 12 13 14 15 0 1 2 3 (local.get $pp) (local.get $pp)))
              (local.set $t (local.get $x)))
            (else
              ;; #include propagateNode.wat load
              ))
          ;; #include propagateNode.wat matrix
          )
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $joints (i32.lt_s (local.get $j) (local.get $n)))))
    (i32.store (global.get $refusedAt) (local.get $refused))
    (i32.store (global.get $fusedOut) (local.get $rejected))
    (local.get $recomputed))

  ;; One playing character: the plan at `table` at the located tracks (trackK …), `n` joints, ANIM at byte
  ;; `anim`, joint ids at byte `jn`. Returns the nodes recomputed.
  (func (export "character") (param $table i32) (param $n i32) (param $anim i32) (param $jn i32) (result i32)
    (call $sample (local.get $table) (local.get $anim)
      (global.get $trackK) (global.get $trackU) (global.get $trackOn))
    (call $joints (local.get $n) (local.get $anim) (local.get $jn)))

  ;; c0 + c1·y + (c2 + c3·y)·y2 + (c4 + c5·y + (c6 + c7·y)·y2)·y4 + (c8 + c9·y)·y8, left to right, the ten
  ;; coefficients at `c` (blend.ts's s0 and s1).
  (func $series (param $c i32) (param $y f64) (param $y2 f64) (param $y4 f64) (param $y8 f64) (result f64)
    (f64.add (f64.add (f64.add
      (f64.add (f64.load offset=0 (local.get $c)) (f64.mul (f64.load offset=8 (local.get $c)) (local.get $y)))
      (f64.mul (f64.add (f64.load offset=16 (local.get $c)) (f64.mul (f64.load offset=24 (local.get $c)) (local.get $y)))
        (local.get $y2)))
      (f64.mul (f64.add
        (f64.add (f64.load offset=32 (local.get $c)) (f64.mul (f64.load offset=40 (local.get $c)) (local.get $y)))
        (f64.mul (f64.add (f64.load offset=48 (local.get $c)) (f64.mul (f64.load offset=56 (local.get $c)) (local.get $y)))
          (local.get $y2)))
        (local.get $y4)))
      (f64.mul (f64.add (f64.load offset=64 (local.get $c)) (f64.mul (f64.load offset=72 (local.get $c)) (local.get $y)))
        (local.get $y8))))

  ;; Three floats at `o` = a + (b − a)·w of those at `a` and `b`.
  (func $lerp3 (param $o i32) (param $a i32) (param $b i32) (param $w f64)
    (local $i i32) (local $v f64)
    (loop $lerp
      (local.set $v (f64.promote_f32 (f32.load (i32.add (local.get $a) (local.get $i)))))
      (f32.store (i32.add (local.get $o) (local.get $i)) (f32.demote_f64 (f64.add (local.get $v)
        (f64.mul (f64.sub (f64.promote_f32 (f32.load (i32.add (local.get $b) (local.get $i)))) (local.get $v))
          (local.get $w)))))
      (local.set $i (i32.add (local.get $i) (i32.const 4)))
      (br_if $lerp (i32.lt_s (local.get $i) (i32.const 12)))))

  ;; blendPosesAt (src/engine/blend.ts) of `n` joints: out = the poses at `a` (FROM) and `b` (TO) blended by the
  ;; weight at fadeWeight, rotations by the slerp series whose coefficients are at fadeSeries (a0 … a9, b0 … b9:
  ;; blend.ts's seriesCoefficients for that weight, scale 2), translations and scales lerped where the joint's
  ;; byte at `paths` has BLEND_T (1) or BLEND_S (2), or everywhere when `paths` is 0. The same operations in the
  ;; same order, so the same bits.
  (func $blend (param $n i32) (param $out i32) (param $a i32) (param $b i32) (param $paths i32)
    (local $j i32) (local $o i32) (local $pa i32) (local $pb i32) (local $m i32) (local $c i32)
    (local $w f64) (local $ax f64) (local $ay f64) (local $az f64) (local $aw f64)
    (local $bx f64) (local $by f64) (local $bz f64) (local $bw f64) (local $cos f64) (local $sg f64)
    (local $y f64) (local $y2 f64) (local $y4 f64) (local $y8 f64) (local $s0 f64) (local $s1 f64)
    (local $x f64) (local $qy f64) (local $z f64) (local $qw f64) (local $inv f64)
    (local.set $w (f64.load (global.get $fadeWeight)))
    (local.set $c (global.get $fadeSeries))
    (if (i32.or (i32.eqz (f64.gt (local.get $w) (f64.const 0))) (f64.ge (local.get $w) (f64.const 1)))
      (then
        ;; Outside (0, 1): FROM (w ≤ 0 or NaN) or TO, copied whole.
        (local.set $pa (select (local.get $b) (local.get $a) (f64.ge (local.get $w) (f64.const 1))))
        (block $copied
          (br_if $copied (i32.le_s (local.get $n) (i32.const 0)))
          (loop $copy
            (i32.store (i32.add (local.get $out) (local.get $o)) (i32.load (i32.add (local.get $pa) (local.get $o))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br_if $copy (i32.lt_s (local.get $o) (i32.mul (local.get $n) (i32.const 40))))))
        (return)))
    (block $done
      (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
      (loop $joint
        (local.set $o (i32.add (local.get $out) (i32.mul (local.get $j) (i32.const 40))))
        (local.set $pa (i32.add (local.get $a) (i32.mul (local.get $j) (i32.const 40))))
        (local.set $pb (i32.add (local.get $b) (i32.mul (local.get $j) (i32.const 40))))
        (local.set $m (if (result i32) (local.get $paths)
          (then (i32.load8_u (i32.add (local.get $paths) (local.get $j))))
          (else (i32.const 3))))
        (local.set $ax (f64.promote_f32 (f32.load offset=12 (local.get $pa))))
        (local.set $ay (f64.promote_f32 (f32.load offset=16 (local.get $pa))))
        (local.set $az (f64.promote_f32 (f32.load offset=20 (local.get $pa))))
        (local.set $aw (f64.promote_f32 (f32.load offset=24 (local.get $pa))))
        (local.set $bx (f64.promote_f32 (f32.load offset=12 (local.get $pb))))
        (local.set $by (f64.promote_f32 (f32.load offset=16 (local.get $pb))))
        (local.set $bz (f64.promote_f32 (f32.load offset=20 (local.get $pb))))
        (local.set $bw (f64.promote_f32 (f32.load offset=24 (local.get $pb))))
        (local.set $cos (f64.add (f64.add (f64.add
          (f64.mul (local.get $ax) (local.get $bx)) (f64.mul (local.get $ay) (local.get $by)))
          (f64.mul (local.get $az) (local.get $bz))) (f64.mul (local.get $aw) (local.get $bw))))
        (local.set $sg (select (f64.const -1) (f64.const 1) (f64.lt (local.get $cos) (f64.const 0))))
        (local.set $cos (f64.mul (local.get $cos) (local.get $sg)))
        (local.set $bx (f64.mul (local.get $bx) (local.get $sg)))
        (local.set $by (f64.mul (local.get $by) (local.get $sg)))
        (local.set $bz (f64.mul (local.get $bz) (local.get $sg)))
        (local.set $bw (f64.mul (local.get $bw) (local.get $sg)))
        ;; y = cos φ − 1 and its powers (Estrin's scheme).
        (local.set $y (f64.sub (f64.sqrt (f64.mul (f64.add (f64.const 1) (local.get $cos)) (f64.const 0.5)))
          (f64.const 1)))
        (local.set $y2 (f64.mul (local.get $y) (local.get $y)))
        (local.set $y4 (f64.mul (local.get $y2) (local.get $y2)))
        (local.set $y8 (f64.mul (local.get $y4) (local.get $y4)))
        (local.set $s0 (call $series (local.get $c) (local.get $y) (local.get $y2) (local.get $y4) (local.get $y8)))
        (local.set $s1 (call $series (i32.add (local.get $c) (i32.const 80))
          (local.get $y) (local.get $y2) (local.get $y4) (local.get $y8)))
        (local.set $x (f64.add (f64.mul (local.get $s0) (local.get $ax)) (f64.mul (local.get $s1) (local.get $bx))))
        (local.set $qy (f64.add (f64.mul (local.get $s0) (local.get $ay)) (f64.mul (local.get $s1) (local.get $by))))
        (local.set $z (f64.add (f64.mul (local.get $s0) (local.get $az)) (f64.mul (local.get $s1) (local.get $bz))))
        (local.set $qw (f64.add (f64.mul (local.get $s0) (local.get $aw)) (f64.mul (local.get $s1) (local.get $bw))))
        (local.set $inv (f64.div (f64.const 1) (f64.sqrt (f64.add (f64.add (f64.add
          (f64.mul (local.get $x) (local.get $x)) (f64.mul (local.get $qy) (local.get $qy)))
          (f64.mul (local.get $z) (local.get $z))) (f64.mul (local.get $qw) (local.get $qw))))))
        (f32.store offset=12 (local.get $o) (f32.demote_f64 (f64.mul (local.get $x) (local.get $inv))))
        (f32.store offset=16 (local.get $o) (f32.demote_f64 (f64.mul (local.get $qy) (local.get $inv))))
        (f32.store offset=20 (local.get $o) (f32.demote_f64 (f64.mul (local.get $z) (local.get $inv))))
        (f32.store offset=24 (local.get $o) (f32.demote_f64 (f64.mul (local.get $qw) (local.get $inv))))
        (if (i32.and (local.get $m) (i32.const 1))
          (then (call $lerp3 (local.get $o) (local.get $pa) (local.get $pb) (local.get $w))))
        (if (i32.and (local.get $m) (i32.const 2))
          (then (call $lerp3 (i32.add (local.get $o) (i32.const 28)) (i32.add (local.get $pa) (i32.const 28))
            (i32.add (local.get $pb) (i32.const 28)) (local.get $w))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $joint (i32.lt_s (local.get $j) (local.get $n))))))

  ;; One cross-fading character: FROM (plan at `fromTable`, tracks at trackK2 …) and TO (plan at `table`, tracks at
  ;; trackK …) sampled into their poses at bytes `from` and `to`, blended into ANIM at byte `anim` (paths at
  ;; fadePaths when `paths` is 1), then written out and propagated. Returns the nodes recomputed.
  (func (export "fade") (param $table i32) (param $fromTable i32) (param $n i32) (param $anim i32)
    (param $from i32) (param $to i32) (param $jn i32) (param $paths i32) (result i32)
    (call $sample (local.get $fromTable) (local.get $from)
      (global.get $trackK2) (global.get $trackU2) (global.get $trackOn2))
    (call $sample (local.get $table) (local.get $to)
      (global.get $trackK) (global.get $trackU) (global.get $trackOn))
    (call $blend (local.get $n) (local.get $anim) (local.get $from) (local.get $to)
      (select (global.get $fadePaths) (i32.const 0) (local.get $paths)))
    (call $joints (local.get $n) (local.get $anim) (local.get $jn)))
)
