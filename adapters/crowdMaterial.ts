/**
 * The instanced crowd's material (adapters/threeCrowd.ts): a copy of a skinned mesh's material whose vertex
 * shader skins per instance from the crowd's palette texture, row gl_InstanceID.
 *
 * @module
 */
import type { IUniform, Material, Matrix4, WebGLProgramParametersWithUniforms } from 'three'

/** GLSL put in place of three's skinning chunks (see the module comment). */
export const CROWD_SKINNING = {
  pars: /* glsl */ `#include <skinning_pars_vertex>
#ifndef USE_SKINNING
attribute vec4 skinIndex;
attribute vec4 skinWeight;
#endif
uniform highp sampler2D crowdPalette;
uniform int crowdSkinStart;
uniform mat4 crowdBindMatrix;
mat4 crowdBone( const in float i ) {
	int x = ( crowdSkinStart + int( i ) ) * 4;
	return mat4(
		texelFetch( crowdPalette, ivec2( x, gl_InstanceID ), 0 ),
		texelFetch( crowdPalette, ivec2( x + 1, gl_InstanceID ), 0 ),
		texelFetch( crowdPalette, ivec2( x + 2, gl_InstanceID ), 0 ),
		texelFetch( crowdPalette, ivec2( x + 3, gl_InstanceID ), 0 ) );
}`,
  base: /* glsl */ `mat4 boneMatX = crowdBone( skinIndex.x );
mat4 boneMatY = crowdBone( skinIndex.y );
mat4 boneMatZ = crowdBone( skinIndex.z );
mat4 boneMatW = crowdBone( skinIndex.w );`,
  normal: /* glsl */ `mat4 skinMatrix = mat4( 0.0 );
skinMatrix += skinWeight.x * boneMatX;
skinMatrix += skinWeight.y * boneMatY;
skinMatrix += skinWeight.z * boneMatZ;
skinMatrix += skinWeight.w * boneMatW;
skinMatrix = skinMatrix * crowdBindMatrix;
objectNormal = vec4( skinMatrix * vec4( objectNormal, 0.0 ) ).xyz;
#ifdef USE_TANGENT
objectTangent = vec4( skinMatrix * vec4( objectTangent, 0.0 ) ).xyz;
#endif`,
  vertex: /* glsl */ `vec4 crowdVertex = crowdBindMatrix * vec4( transformed, 1.0 );
vec4 crowdSkinned = vec4( 0.0 );
crowdSkinned += boneMatX * crowdVertex * skinWeight.x;
crowdSkinned += boneMatY * crowdVertex * skinWeight.y;
crowdSkinned += boneMatZ * crowdVertex * skinWeight.z;
crowdSkinned += boneMatW * crowdVertex * skinWeight.w;
transformed = crowdSkinned.xyz;`,
} as const

/** Three's chunks the crowd replaces, in the order CROWD_SKINNING lists theirs. */
const CHUNKS = {
  pars: '#include <skinning_pars_vertex>',
  base: '#include <skinbase_vertex>',
  normal: '#include <skinnormal_vertex>',
  vertex: '#include <skinning_vertex>',
} as const

/**
 * A copy of a skinned mesh's material that skins per instance from the crowd's palette texture: the same
 * material (textures, colours, lighting) with three's skinning chunks replaced before compiling. A shader
 * without them (a ShaderMaterial of the game's) is left as it is.
 */
export function crowdMaterial(
  source: Material,
  palette: IUniform,
  start: number,
  bindMatrix: Matrix4,
): Material {
  const material = source.clone()
  const previous = source.onBeforeCompile
  material.onBeforeCompile = (shader: WebGLProgramParametersWithUniforms, renderer) => {
    previous.call(material, shader, renderer)
    shader.uniforms.crowdPalette = palette
    shader.uniforms.crowdSkinStart = { value: start }
    shader.uniforms.crowdBindMatrix = { value: bindMatrix.clone() }
    let text = shader.vertexShader
    for (const key of Object.keys(CHUNKS) as (keyof typeof CHUNKS)[]) {
      text = text.replace(CHUNKS[key], CROWD_SKINNING[key])
    }
    shader.vertexShader = text
  }
  // One program for every crowd material of a kind (the skin's start is a uniform), apart from the source's.
  material.customProgramCacheKey = () => `ecs-anim-crowd:${source.customProgramCacheKey()}`
  return material
}
