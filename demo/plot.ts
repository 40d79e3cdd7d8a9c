/**
 * A strip chart of the last few seconds, one sample per fixed step: ragdoll_weight and the cross-fade blend
 * factor (both in [0, 1]; the blend only while a fade runs, NaN otherwise, drawn as a gap).
 */
export interface Plot {
  push(weight: number, blend: number): void
  /** Forgets every sample (a new character). */
  clear(): void
  draw(): void
}

const SERIES = [
  { label: 'ragdoll_weight', color: '#ff6b3d' },
  { label: 'cross-fade blend', color: '#3da5ff' },
] as const

export function createPlot(canvas: HTMLCanvasElement, samples: number): Plot {
  const data = [new Float32Array(samples).fill(NaN), new Float32Array(samples).fill(NaN)]
  let head = 0 // next write position; the oldest sample sits here
  const g = canvas.getContext('2d')!

  return {
    push(weight, blend) {
      data[0]![head] = weight
      data[1]![head] = blend
      head = (head + 1) % samples
    },
    clear() {
      for (const d of data) d.fill(NaN)
    },
    draw() {
      const w = canvas.width
      const h = canvas.height
      const top = 14
      const plotH = h - top - 4
      g.clearRect(0, 0, w, h)
      g.fillStyle = 'rgba(0,0,0,0.35)'
      g.fillRect(0, 0, w, h)
      g.strokeStyle = 'rgba(255,255,255,0.15)'
      g.beginPath()
      for (const v of [0, 0.5, 1]) {
        const y = top + (1 - v) * plotH
        g.moveTo(0, y)
        g.lineTo(w, y)
      }
      g.stroke()
      g.font = '10px system-ui, sans-serif'
      SERIES.forEach((s, k) => {
        g.fillStyle = s.color
        g.fillText(s.label, 4 + k * 110, 10)
        g.strokeStyle = s.color
        g.lineWidth = 1.5
        g.beginPath()
        let pen = false
        for (let i = 0; i < samples; i++) {
          const v = data[k]![(head + i) % samples]!
          if (Number.isNaN(v)) {
            pen = false
            continue
          }
          const x = (i / (samples - 1)) * w
          const y = top + (1 - v) * plotH
          if (pen) g.lineTo(x, y)
          else g.moveTo(x, y)
          pen = true
        }
        g.stroke()
      })
    },
  }
}
