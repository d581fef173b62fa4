// FunctionRef: a reference to a callable, for functions that take one without being templates.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace simdscan {
namespace detail {

// A callable passed down by reference, without a copy or an allocation, through one body of the function that takes
// it: a std::function, or a template parameter, made the pool's callers one instantiation per job type each.
template <class Signature>
class FunctionRef;
template <class R, class... Args>
class FunctionRef<R(Args...)> {
public:
    template <class F, class = std::enable_if_t<!std::is_same<std::decay_t<F>, FunctionRef>::value>>
    FunctionRef(F&& f)  // NOLINT: implicit, as a callable is passed
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_(&call<std::remove_reference_t<F>>) {}
    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    template <class F>
    static R call(void* object, Args... args) {
        return (*static_cast<F*>(object))(std::forward<Args>(args)...);
    }

    void* object_;
    R (*call_)(void*, Args...);
};

}  // namespace detail
}  // namespace simdscan
