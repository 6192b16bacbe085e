// The IR passes, one per file in this folder. Each returns what it did as a value.
#pragma once

#include "ir/passes/cse.hpp"
#include "ir/passes/dce.hpp"
#include "ir/passes/fold_constants.hpp"
#include "ir/passes/fuse_elementwise.hpp"
#include "ir/passes/infer_types.hpp"
#include "ir/passes/plan_memory.hpp"
