import { InitialSchema1760000000000 } from './1760000000000-initial-schema';

/** Every migration, oldest first. Listed by hand: nothing is discovered from dist/. */
export const MIGRATIONS = [InitialSchema1760000000000];
