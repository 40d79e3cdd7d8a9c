import { Vector3 } from 'three'
import type { Stage } from './stage.ts'

/** What probe finds: the screen box looked at, its pixels, how many differ, and their mean colour (0–255). */
export interface Probe {
  box: { x: number; y: number; width: number; height: number }
  pixels: number
  differing: number
  mean: number[]
}

/**
 * Draws the frame twice, with something hidden (`show(false)`) and shown (`show(true)`), and compares the
 * pixels inside the screen box of `points` (world positions): how many differ, and the mean colour of those.
 * Proves the thing is on screen and lit (the e2e test's pixel probes).
 */
export function probe(stage: Stage, points: readonly Vector3[], show: (visible: boolean) => void): Probe {
  const gl = stage.renderer.getContext()
  const w = gl.drawingBufferWidth
  const h = gl.drawingBufferHeight
  const box = { x0: w, y0: h, x1: 0, y1: 0 }
  const v = new Vector3()
  for (const p of points) {
    v.copy(p).project(stage.camera)
    const x = ((v.x + 1) / 2) * w
    const y = ((v.y + 1) / 2) * h // GL rows, bottom up
    box.x0 = Math.min(box.x0, x)
    box.x1 = Math.max(box.x1, x)
    box.y0 = Math.min(box.y0, y)
    box.y1 = Math.max(box.y1, y)
  }
  const x0 = Math.max(0, Math.floor(box.x0))
  const y0 = Math.max(0, Math.floor(box.y0))
  const bw = Math.max(1, Math.min(w, Math.ceil(box.x1)) - x0)
  const bh = Math.max(1, Math.min(h, Math.ceil(box.y1)) - y0)
  const read = (): Uint8Array => {
    stage.renderer.render(stage.scene, stage.camera)
    const px = new Uint8Array(bw * bh * 4)
    gl.readPixels(x0, y0, bw, bh, gl.RGBA, gl.UNSIGNED_BYTE, px)
    return px
  }
  show(false)
  const without = read()
  show(true)
  const withIt = read()
  let differing = 0
  const mean = [0, 0, 0]
  for (let i = 0; i < without.length; i += 4) {
    const d =
      Math.abs(without[i]! - withIt[i]!) +
      Math.abs(without[i + 1]! - withIt[i + 1]!) +
      Math.abs(without[i + 2]! - withIt[i + 2]!)
    if (d > 24) {
      differing++
      for (let k = 0; k < 3; k++) mean[k]! += withIt[i + k]!
    }
  }
  return {
    box: { x: x0, y: y0, width: bw, height: bh },
    pixels: bw * bh,
    differing,
    mean: mean.map((m) => m / Math.max(1, differing)),
  }
}
