;; propagateSimd.wat's work on one node, shared with the fused pass (fusedSimd.wat): each module includes
;; these fragments (scripts/build-wasm.mjs expands `;; #include FILE NAME` lines), so there is one copy of the
;; arithmetic whose bits test/engine/propagate.test.ts holds to propagateWorldMatrices.
;;
;; `locals`: the v128 locals the body uses (with i32 $e $p $o $po $refused $recomputed declared by the includer).
;; Node $e (whose parent's world matrix is current), in three fragments the includer puts in a block $next:
;; `check` skips it (changed 0, `br $next`) unless it or its parent changed; `load` reads its rotation ($a, f32x4),
;; scale ($s) and translation ($t, f32x4, lanes 0–2) from the store; `matrix` makes its world matrix from them, or
;; refuses it (listed, counted in $refused). The fused pass has just written the rows `load` reads and hands them
;; over in registers instead: a load spanning two smaller stores in flight waits for them.

;; #fragment locals
    ;; f64x2 unless said: (x, y), (z, w), (x2, y2), (z2, z2); the products (xx, xy) (yy, yz) (wx, wy) (xz, zz)
    ;; (wz, wz); (xy − wz, xy + wz), (1 − (yy + zz), 1 − (xx + zz)), (xz, yz), 1 − (xx + yy) in lane 0
    (local $xy v128) (local $zw v128) (local $d v128) (local $z2 v128)
    (local $px v128) (local $py v128) (local $pw v128) (local $pz v128) (local $wz v128)
    (local $a v128) (local $b v128) (local $ef v128) (local $f v128) (local $h v128)
    ;; f32x4 scale and translation; (sx, sy), (sz, 1), (tx, ty), (tz, ·)
    (local $s v128) (local $t v128) (local $s01 v128) (local $sz1 v128) (local $t01 v128) (local $t2 v128)
    ;; T·R·S in pairs: (l00, l01) (l10, l11) (l20, l21) (l02, tx) (l12, ty) (l22, tz)
    (local $L0 v128) (local $L1 v128) (local $L2 v128) (local $L3 v128) (local $L4 v128) (local $L5 v128)
    ;; the parent: f32x4 columns 0 and 3; (p00, p10) (p01, p11) (p02, p12) (p03, p13); p20, p21, p22 splat
    (local $h0 v128) (local $h1 v128) (local $h2 v128) (local $h3 v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local $p20 v128) (local $p21 v128) (local $p22 v128)
    ;; the world matrix in pairs: (m0, m1) (m2, m6) (m4, m5) (m8, m9) (m10, m14) (m12, m13)
    (local $m01 v128) (local $m26 v128) (local $m45 v128) (local $m89 v128) (local $mAE v128) (local $mCD v128)
    ;; f32x4 columns (f0 f1 f2 0) (f4 f5 f6 0) (f8 f9 f10 0) (f12 f13 f14 0), and the guard's lanes
    (local $k0 v128) (local $k1 v128) (local $k2 v128) (local $k3 v128) (local $g v128)
;; #end

;; #fragment check
          (local.set $p (i32.load (i32.add (global.get $parent) (i32.shl (local.get $e) (i32.const 2)))))
          (if (i32.eqz (i32.or (i32.load8_u (i32.add (global.get $dirty) (local.get $e)))
                               (i32.load8_u (i32.add (global.get $changed) (local.get $p)))))
            (then
              (i32.store8 (i32.add (global.get $changed) (local.get $e)) (i32.const 0))
              (br $next)))
;; #end

;; #fragment load
          (local.set $a (v128.load (i32.add (global.get $rotation) (i32.shl (local.get $e) (i32.const 4)))))
          (local.set $s (v128.load (i32.add (global.get $scale) (i32.mul (local.get $e) (i32.const 12)))))
          (local.set $t (v128.load (i32.add (global.get $translation) (i32.mul (local.get $e) (i32.const 12)))))
;; #end

;; #fragment matrix
          ;; The quaternion's products (composeMatrix's), two at a time.
          (local.set $xy (f64x2.promote_low_f32x4 (local.get $a)))
          (local.set $zw (f64x2.promote_low_f32x4
            (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $a) (local.get $a))))
          (local.set $d (f64x2.add (local.get $xy) (local.get $xy)))
          (local.set $z2 (f64x2.add (local.get $zw) (local.get $zw)))
          (local.set $z2 (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $z2) (local.get $z2)))
          (local.set $px (f64x2.mul
            (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $xy) (local.get $xy)) (local.get $d)))
          (local.set $py (f64x2.mul
            (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $xy) (local.get $xy))
            (i8x16.shuffle 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 (local.get $d) (local.get $z2))))
          (local.set $a (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $zw) (local.get $zw)))
          (local.set $pw (f64x2.mul (local.get $a) (local.get $d)))
          (local.set $wz (f64x2.mul (local.get $a) (local.get $z2)))
          (local.set $pz (f64x2.mul
            (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $xy) (local.get $zw)) (local.get $z2)))
          ;; The sums: xy ∓ wz; 1 − (yy + zz), 1 − (xx + zz); xz ∓ wy, yz ± wx; 1 − (xx + yy).
          (local.set $a (f64x2.add
            (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $px) (local.get $px))
            (v128.xor (local.get $wz) (v128.const i64x2 0x8000000000000000 0))))
          (local.set $b (f64x2.sub (v128.const f64x2 1 1)
            (f64x2.add
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $py) (local.get $px))
              (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $pz) (local.get $pz)))))
          (local.set $ef (i8x16.shuffle 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 (local.get $pz) (local.get $py)))
          (local.set $f (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $pw) (local.get $pw)))
          (local.set $h (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $px) (local.get $py)))
          (local.set $h (f64x2.sub (v128.const f64x2 1 1)
            (f64x2.add (local.get $h)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $h) (local.get $h)))))
          ;; × scale, paired with the translation (× 1) for the last column.
          (local.set $s01 (f64x2.promote_low_f32x4 (local.get $s)))
          (local.set $sz1 (f64x2.promote_low_f32x4
            (i8x16.shuffle 8 9 10 11 16 17 18 19 0 1 2 3 4 5 6 7 (local.get $s) (v128.const f32x4 1 1 1 1))))
          (local.set $t01 (f64x2.promote_low_f32x4 (local.get $t)))
          (local.set $t2 (f64x2.promote_low_f32x4
            (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $t) (local.get $t))))
          (local.set $L0 (f64x2.mul
            (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $b) (local.get $a)) (local.get $s01)))
          (local.set $L1 (f64x2.mul
            (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a) (local.get $b)) (local.get $s01)))
          (local.set $L2 (f64x2.mul
            (f64x2.add (local.get $ef) (v128.xor (local.get $f) (v128.const i64x2 0x8000000000000000 0)))
            (local.get $s01)))
          (local.set $a (f64x2.add (local.get $ef) (v128.xor (local.get $f) (v128.const i64x2 0 0x8000000000000000))))
          (local.set $L3 (f64x2.mul
            (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a) (local.get $t01)) (local.get $sz1)))
          (local.set $L4 (f64x2.mul
            (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a) (local.get $t01)) (local.get $sz1)))
          (local.set $L5 (f64x2.mul
            (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $h) (local.get $t2)) (local.get $sz1)))
          (if (i32.eqz (local.get $p))
            (then
              ;; A root: world = T·R·S.
              (local.set $m01 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $L0) (local.get $L1)))
              (local.set $m45 (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $L0) (local.get $L1)))
              (local.set $m26 (local.get $L2))
              (local.set $m89 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $L3) (local.get $L4)))
              (local.set $mCD (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $L3) (local.get $L4)))
              (local.set $mAE (local.get $L5)))
            (else
              ;; world = parentWorld · T·R·S, each sum left to right as multiplyMatrices takes it.
              (local.set $po (i32.add (global.get $world) (i32.shl (local.get $p) (i32.const 6))))
              (local.set $h0 (v128.load offset=0 (local.get $po)))
              (local.set $h1 (v128.load offset=16 (local.get $po)))
              (local.set $h2 (v128.load offset=32 (local.get $po)))
              (local.set $h3 (v128.load offset=48 (local.get $po)))
              (local.set $c0 (f64x2.promote_low_f32x4 (local.get $h0)))
              (local.set $c1 (f64x2.promote_low_f32x4 (local.get $h1)))
              (local.set $c2 (f64x2.promote_low_f32x4 (local.get $h2)))
              (local.set $c3 (f64x2.promote_low_f32x4 (local.get $h3)))
              (local.set $p20 (f64x2.promote_low_f32x4
                (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $h0) (local.get $h0))))
              (local.set $p21 (f64x2.promote_low_f32x4
                (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $h1) (local.get $h1))))
              (local.set $p22 (f64x2.promote_low_f32x4
                (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $h2) (local.get $h2))))
              ;; (m0, m1), (m4, m5), (m8, m9), (m12, m13): the parent's rows 0 and 1 times one local column.
              (local.set $m01 (f64x2.add (f64x2.add
                (f64x2.mul (local.get $c0)
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $L0) (local.get $L0)))
                (f64x2.mul (local.get $c1)
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $L1) (local.get $L1))))
                (f64x2.mul (local.get $c2)
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $L2) (local.get $L2)))))
              (local.set $m45 (f64x2.add (f64x2.add
                (f64x2.mul (local.get $c0)
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $L0) (local.get $L0)))
                (f64x2.mul (local.get $c1)
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $L1) (local.get $L1))))
                (f64x2.mul (local.get $c2)
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $L2) (local.get $L2)))))
              (local.set $m89 (f64x2.add (f64x2.add
                (f64x2.mul (local.get $c0)
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $L3) (local.get $L3)))
                (f64x2.mul (local.get $c1)
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $L4) (local.get $L4))))
                (f64x2.mul (local.get $c2)
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $L5) (local.get $L5)))))
              (local.set $mCD (f64x2.add (f64x2.add (f64x2.add
                (f64x2.mul (local.get $c0)
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $L3) (local.get $L3)))
                (f64x2.mul (local.get $c1)
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $L4) (local.get $L4))))
                (f64x2.mul (local.get $c2)
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $L5) (local.get $L5))))
                (local.get $c3)))
              ;; (m2, m6), (m10, m14): the parent's row 2 times two local columns; m10 adds −0 (itself).
              (local.set $m26 (f64x2.add (f64x2.add
                (f64x2.mul (local.get $p20) (local.get $L0))
                (f64x2.mul (local.get $p21) (local.get $L1)))
                (f64x2.mul (local.get $p22) (local.get $L2))))
              (local.set $mAE (f64x2.add (f64x2.add (f64x2.add
                (f64x2.mul (local.get $p20) (local.get $L3))
                (f64x2.mul (local.get $p21) (local.get $L4)))
                (f64x2.mul (local.get $p22) (local.get $L5)))
                (f64x2.promote_low_f32x4
                  (i8x16.shuffle 0 1 2 3 24 25 26 27 0 1 2 3 0 1 2 3
                    (v128.const f32x4 -0 -0 -0 -0) (local.get $h3)))))))
          ;; Rounded to f32 as the store rounds them, gathered into columns (row 3 zero).
          (local.set $a (f32x4.demote_f64x2_zero (local.get $m26)))
          (local.set $b (f32x4.demote_f64x2_zero (local.get $mAE)))
          (local.set $k0 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 24 25 26 27
            (f32x4.demote_f64x2_zero (local.get $m01)) (local.get $a)))
          (local.set $k1 (i8x16.shuffle 0 1 2 3 4 5 6 7 20 21 22 23 24 25 26 27
            (f32x4.demote_f64x2_zero (local.get $m45)) (local.get $a)))
          (local.set $k2 (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 24 25 26 27
            (f32x4.demote_f64x2_zero (local.get $m89)) (local.get $b)))
          (local.set $k3 (i8x16.shuffle 0 1 2 3 4 5 6 7 20 21 22 23 24 25 26 27
            (f32x4.demote_f64x2_zero (local.get $mCD)) (local.get $b)))
          ;; Refused when one of the twelve is NaN or ±∞: then k − k is NaN in its lane (else +0), and a NaN
          ;; lane survives the sums and fails k = k.
          (local.set $g (f32x4.add
            (f32x4.add (f32x4.sub (local.get $k0) (local.get $k0)) (f32x4.sub (local.get $k1) (local.get $k1)))
            (f32x4.add (f32x4.sub (local.get $k2) (local.get $k2)) (f32x4.sub (local.get $k3) (local.get $k3)))))
          (if (i32.eqz (i32x4.all_true (f32x4.eq (local.get $g) (local.get $g))))
            (then
              (if (i32.lt_s (local.get $refused) (global.get $maxRefused))
                (then
                  (i32.store offset=4
                    (i32.add (global.get $refusedAt) (i32.shl (local.get $refused) (i32.const 2)))
                    (local.get $e))))
              (local.set $refused (i32.add (local.get $refused) (i32.const 1)))
              (i32.store8 (i32.add (global.get $dirty) (local.get $e)) (i32.const 0))
              (i32.store8 (i32.add (global.get $changed) (local.get $e)) (i32.const 0))
              (br $next)))
          ;; The 12 affine elements, each column with its row-3 element as it was (0 0 0 1, written when the node
          ;; was added): whole 16-byte columns, so that a child's loads of them are forwarded from these stores.
          (local.set $o (i32.add (global.get $world) (i32.shl (local.get $e) (i32.const 6))))
          (v128.store offset=0 (local.get $o) (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 28 29 30 31
            (local.get $k0) (v128.load offset=0 (local.get $o))))
          (v128.store offset=16 (local.get $o) (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 28 29 30 31
            (local.get $k1) (v128.load offset=16 (local.get $o))))
          (v128.store offset=32 (local.get $o) (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 28 29 30 31
            (local.get $k2) (v128.load offset=32 (local.get $o))))
          (v128.store offset=48 (local.get $o) (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 28 29 30 31
            (local.get $k3) (v128.load offset=48 (local.get $o))))
          (i32.store8 (i32.add (global.get $dirty) (local.get $e)) (i32.const 0))
          (i32.store8 (i32.add (global.get $changed) (local.get $e)) (i32.const 1))
          (local.set $recomputed (i32.add (local.get $recomputed) (i32.const 1)))
;; #end
