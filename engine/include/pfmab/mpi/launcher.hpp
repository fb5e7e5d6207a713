#pragma once

namespace pfmab::mpi {

// What the environment says of an MPI launcher (Open MPI's mpirun, PMI as
// Slurm's srun and MPICH set it, PMIx): whether one started this process,
// how many processes it started (0 when it does not say) and which this is. Built with or
// without MPI: a program built without it must still notice that it was
// started as many ranks, each of which would run the whole experiment.
struct Launch {
  bool launched = false;
  int ranks = 0;
  int rank = 0;
};
Launch launcher();

}  // namespace pfmab::mpi
