import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { createFixedStepper } from '../../src/sim/fixedStep.ts'

function expectAnimationError(fn: () => unknown, message: string): void {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(AnimationError)
    expect((error as AnimationError).kind).toBe('argument')
    expect((error as AnimationError).message).toBe(message)
    return
  }
  expect.fail(`expected AnimationError: ${message}`)
}

/** Runs the frames and returns the steps each one ran, checking the callback saw the stepper's dt each time. */
function run(stepper: ReturnType<typeof createFixedStepper>, frames: readonly number[]): number[] {
  return frames.map((frame) => {
    let calls = 0
    const ran = stepper.advance(frame, (dt) => {
      expect(dt).toBe(stepper.dt)
      calls++
    })
    expect(ran).toBe(calls)
    return ran
  })
}

describe('createFixedStepper', () => {
  it('defaults to 1/60 s steps and at most 5 per frame', () => {
    const stepper = createFixedStepper()
    expect(stepper.dt).toBe(1 / 60)
    expect(stepper.maxStepsPerFrame).toBe(5)
    expect(stepper.steps).toBe(0)
    expect(stepper.alpha).toBe(0)
  })

  it('runs one step per 60 Hz frame, two per 30 Hz frame, one every other 120 Hz frame', () => {
    expect(run(createFixedStepper(), [1 / 60, 1 / 60, 1 / 60])).toEqual([1, 1, 1])
    expect(run(createFixedStepper(), [1 / 30, 1 / 30])).toEqual([2, 2])
    const half = createFixedStepper()
    expect(run(half, [1 / 120, 1 / 120, 1 / 120, 1 / 120, 1 / 120])).toEqual([0, 1, 0, 1, 0])
    expect(half.steps).toBe(2)
    expect(half.alpha).toBeCloseTo(0.5, 12)
  })

  it('runs nothing for a zero-length frame', () => {
    const stepper = createFixedStepper()
    expect(run(stepper, [0, 0])).toEqual([0, 0])
    expect(stepper.steps).toBe(0)
  })

  it.each([72, 90, 144, 165, 240])(
    'gives exactly the steps due for %s Hz frames, with no step lost to rounding',
    (hz) => {
      // After k frames of 1/hz s, floor(60k / hz) steps of 1/60 s are due (integer arithmetic, independent of
      // the stepper's floating-point accumulator).
      const stepper = createFixedStepper()
      for (let k = 1; k <= hz * 20; k++) {
        stepper.advance(1 / hz, () => {})
        expect(stepper.steps, `after frame ${k}`).toBe(Math.floor((60 * k) / hz))
      }
    },
  )

  it('keeps the leftover fraction as alpha, in [0, 1)', () => {
    // dt = 1/64 s and frames in 1/1024 s ticks: every sum is exact in binary, so steps and alpha are exact.
    const TICKS_PER_STEP = 16
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 50 }), (frames) => {
        const stepper = createFixedStepper({ dt: 1 / 64 })
        let ticks = 0
        for (const frame of frames) {
          stepper.advance(frame / 1024, () => {})
          ticks += frame
          expect(stepper.steps).toBe(Math.floor(ticks / TICKS_PER_STEP))
          expect(stepper.alpha).toBe((ticks % TICKS_PER_STEP) / TICKS_PER_STEP)
        }
      }),
    )
  })

  it('runs at most maxStepsPerFrame and drops the whole steps beyond it, keeping the fraction', () => {
    const stepper = createFixedStepper({ dt: 1 / 64, maxStepsPerFrame: 5 })
    expect(run(stepper, [10.5 / 64])).toEqual([5])
    expect(stepper.steps).toBe(5)
    expect(stepper.alpha).toBe(0.5)
    // The dropped backlog does not come back later.
    expect(run(stepper, [0, 0.5 / 64, 1 / 64])).toEqual([0, 1, 1])
    expect(stepper.alpha).toBe(0)

    const stall = createFixedStepper()
    expect(run(stall, [3600, 1 / 60])).toEqual([5, 1])
    expect(stall.steps).toBe(6)
    expect(stall.alpha).toBeGreaterThanOrEqual(0)
    expect(stall.alpha).toBeLessThan(1)
  })

  it('counts the steps it dropped, in total and for the last frame (issue 16)', () => {
    const stepper = createFixedStepper({ dt: 1 / 64, maxStepsPerFrame: 5 })
    expect([stepper.dropped, stepper.droppedLastFrame]).toEqual([0, 0])
    stepper.advance(10.5 / 64, () => {})
    expect([stepper.dropped, stepper.droppedLastFrame]).toEqual([5, 5])
    stepper.advance(1 / 64, () => {})
    expect([stepper.dropped, stepper.droppedLastFrame]).toEqual([5, 0])
    // The case: advance(0.25) at 60 Hz is 15 steps due, 5 run, 10 dropped.
    const sixty = createFixedStepper()
    expect(sixty.advance(0.25, () => {})).toBe(5)
    expect(sixty.droppedLastFrame).toBe(10)
  })

  it('treats maxStepsPerFrame = 1 as "never catch up"', () => {
    const stepper = createFixedStepper({ maxStepsPerFrame: 1 })
    expect(run(stepper, [1 / 20, 1 / 60])).toEqual([1, 1])
  })

  it('keeps two steppers apart', () => {
    const a = createFixedStepper()
    const b = createFixedStepper({ dt: 1 / 30 })
    run(a, [1 / 30])
    expect(a.steps).toBe(2)
    expect(b.steps).toBe(0)
    run(b, [1 / 30])
    expect(b.steps).toBe(1)
    expect(a.steps).toBe(2)
  })

  it.each([0, -1 / 60, NaN, Infinity])('rejects dt %s', (dt) => {
    expectAnimationError(
      () => createFixedStepper({ dt }),
      `createFixedStepper: dt ${dt} s must be a finite number > 0`,
    )
  })

  it.each([0, -1, 1.5, NaN, Infinity])('rejects maxStepsPerFrame %s', (maxStepsPerFrame) => {
    expectAnimationError(
      () => createFixedStepper({ maxStepsPerFrame }),
      `createFixedStepper: maxStepsPerFrame ${maxStepsPerFrame} must be an integer >= 1`,
    )
  })

  it.each([NaN, -0.001, -Infinity, Infinity])(
    'rejects frame time %s without running or changing anything',
    (frame) => {
      const stepper = createFixedStepper()
      stepper.advance(1 / 120, () => {})
      let calls = 0
      expectAnimationError(
        () => stepper.advance(frame, () => calls++),
        `FixedStepper.advance: frame time ${frame} s must be a finite number >= 0`,
      )
      expect(calls).toBe(0)
      expect(stepper.steps).toBe(0)
      expect(run(stepper, [1 / 120])).toEqual([1])
    },
  )
})
