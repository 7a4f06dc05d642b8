export declare function templateDatabase(databaseUrl: string | undefined, runFolder: string | undefined): string | null;
