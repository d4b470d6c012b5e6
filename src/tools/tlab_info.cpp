// tlab-info: what the Makefile and a curious user ask of the library without running an
// experiment: the machine tag, the registered variants, the environment record.
#include <iostream>
#include <string>

#include "tlab/env.hpp"
#include "tlab/executor.hpp"
#include "tlab/registry.hpp"

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (argc != 2 || (cmd != "tag" && cmd != "variants" && cmd != "env" && cmd != "gpu")) {
    std::cerr << "usage: tlab-info tag|variants|env|gpu\n"
                 "  tag       machine tag used for results/<tag>/\n"
                 "  variants  every registered variant: name, backend, placement, types, note\n"
                 "  env       the environment record a results folder gets (JSON)\n"
                 "  gpu       exit 0 when a CUDA device is usable here, else 1 with the reason\n";
    return 2;
  }
  if (cmd == "tag") {
    std::cout << tlab::machine_tag() << "\n";
  } else if (cmd == "env") {
    std::cout << tlab::to_json(tlab::capture_environment("tlab-info env"));
  } else if (cmd == "gpu") {
    std::string why;
    if (tlab::executor_for(tlab::Backend::gpu, &why)) return 0;
    std::cerr << why << "\n";
    return 1;
  } else {
    tlab::Registry& r = tlab::registry();
    tlab::register_cpu_opt_level_variants(r);
    for (const auto& v : r.all()) {
      std::string types;
      for (tlab::DType t : v.dtypes()) types += (types.empty() ? "" : ",") + std::string(tlab::dtype_name(t));
      std::cout << v.name << "\t" << tlab::backend_name(v.backend) << "\t" << tlab::placement_name(v.placement)
                << "\t" << types << (v.known_wrong ? "\tKNOWN-WRONG" : "") << "\t" << v.note << "\n";
    }
  }
  return 0;
}
