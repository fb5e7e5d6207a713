// The launcher is read from the variables mpirun, PMI (srun, MPICH) and PMIx
// set; none set means a process started alone.
#include "pfmab/mpi/launcher.hpp"

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace pfmab::mpi {
namespace {

constexpr const char* kVariables[] = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                                      "PMI_SIZE",             "PMI_RANK",
                                      "PMIX_RANK"};

// Clears the launcher's variables for a test and puts them back after it.
class Launcher : public ::testing::Test {
 protected:
  void SetUp() override {
    for (std::size_t i = 0; i < std::size(kVariables); ++i) {
      if (const char* value = std::getenv(kVariables[i])) saved_[i] = value;
      ::unsetenv(kVariables[i]);
    }
  }
  void TearDown() override {
    for (std::size_t i = 0; i < std::size(kVariables); ++i) {
      if (saved_[i]) {
        ::setenv(kVariables[i], saved_[i]->c_str(), 1);
      } else {
        ::unsetenv(kVariables[i]);
      }
    }
  }

 private:
  std::optional<std::string> saved_[std::size(kVariables)];
};

TEST_F(Launcher, NoneAlone) {
  const auto launch = launcher();
  EXPECT_FALSE(launch.launched);
  EXPECT_EQ(launch.ranks, 0);
}

TEST_F(Launcher, OpenMpiAndPmiSayHowManyAndWhich) {
  ::setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
  ::setenv("OMPI_COMM_WORLD_RANK", "2", 1);
  EXPECT_TRUE(launcher().launched);
  EXPECT_EQ(launcher().ranks, 3);
  EXPECT_EQ(launcher().rank, 2);
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  ::setenv("PMI_SIZE", "64", 1);
  ::setenv("PMI_RANK", "17", 1);
  EXPECT_TRUE(launcher().launched);
  EXPECT_EQ(launcher().ranks, 64);
  EXPECT_EQ(launcher().rank, 17);
}

TEST_F(Launcher, PmixNamesTheRankOnly) {
  ::setenv("PMIX_RANK", "5", 1);
  EXPECT_TRUE(launcher().launched);
  EXPECT_EQ(launcher().ranks, 0);
  EXPECT_EQ(launcher().rank, 5);
}

}  // namespace
}  // namespace pfmab::mpi
