// The metadata storage class-transformer's plainToInstance reads: the package's main is its
// CommonJS build, whose types are published apart (types/), so this names them for that path.
declare module 'class-transformer/cjs/storage.js' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage.js';
}
