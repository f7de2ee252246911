"""The platform's pure core: envelopes and their hash chain, the table fold and its
deciders, deadlines, what each seat may see. No I/O: the verifier runs on it offline."""
