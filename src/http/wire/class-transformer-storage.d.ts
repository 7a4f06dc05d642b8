// What class-transformer's plainToInstance reads: the package's main is its CommonJS build, whose
// types are published apart (types/), so these name them for those paths.
declare module 'class-transformer/cjs/storage.js' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage.js';
}
declare module 'class-transformer/cjs/constants/default-options.constant.js' {
  export { defaultOptions } from 'class-transformer/types/constants/default-options.constant.js';
}
