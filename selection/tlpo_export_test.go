package selection

// TournamentTwinPairs exposes tournamentTwinPairs to the external tests.
var TournamentTwinPairs = tournamentTwinPairs
