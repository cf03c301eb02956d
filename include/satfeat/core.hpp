/* satfeat/core.hpp - libsatfeat C++17 interface: the error type, spans, the version and the
 * context. Part of satfeat.hpp, which includes every part; include satfeat.hpp. */
#ifndef SATFEAT_HPP_CORE
#define SATFEAT_HPP_CORE

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "satfeat.hpp needs C++17 (-std=c++17); C programs include satfeat.h"
#endif

#include "satfeat.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace satfeat {

/** The exception every failed call throws: what() is the library's message (the context's last
 *  error, or the status's description where the call has no context); status() the C status. */
class error : public std::runtime_error {
public:
    /** An error of `status` with `message`. */
    error(satfeat_status status, const std::string &message)
        : std::runtime_error(message), status_(status)
    {
    }

    /** The status of the failed call (never SATFEAT_OK). */
    satfeat_status status() const noexcept { return status_; }

private:
    satfeat_status status_;
};

namespace detail {

/** Throws satfeat::error for a status other than SATFEAT_OK: the context's message when it has
 *  one, else "`call`: <description of the status>". */
inline void check(satfeat_status status, const satfeat_ctx *ctx, const char *call)
{
    if (status == SATFEAT_OK) return;
    const char *text = ctx ? satfeat_ctx_last_error(ctx) : nullptr;
    if (text && *text) throw error(status, text);
    throw error(status, std::string(call) + ": " + satfeat_status_string(status));
}

/** A deleter for std::unique_ptr that calls the C destructor `Delete`. */
template <class T, void (*Delete)(T *)>
struct deleter {
    /** Frees `p` (NULL is allowed). */
    void operator()(T *p) const noexcept { Delete(p); }
};

/** A move-only owner of a C handle of type T freed by `Delete`. */
template <class T, void (*Delete)(T *)>
using handle = std::unique_ptr<T, deleter<T, Delete>>;

/** Runs a C call of the `T **` output convention (NULL: the call creates the object, else it
 *  refills it) on the object `h` owns, keeps what the call leaves there, and throws on failure
 *  with `ctx`'s message. */
template <class T, void (*Delete)(T *), class Call>
void refill(handle<T, Delete> &h, const satfeat_ctx *ctx, const char *name, Call &&call)
{
    T *raw = h.release();
    const satfeat_status st = call(&raw);
    h.reset(raw);
    check(st, ctx, name);
}

} // namespace detail

/** A view of `size()` contiguous elements owned elsewhere (C++20's std::span, reduced to what
 *  C++17 needs). Built from a pointer and a count, or from any contiguous container (std::vector,
 *  std::array, a C array) whose elements convert to T. */
template <class T>
class span {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;
    using iterator = T *;

    /** An empty view. */
    constexpr span() noexcept = default;

    /** A view of `size` elements at `data`. */
    constexpr span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}

    /** A view of a contiguous container's elements (std::data and std::size of it). */
    template <class C, class = std::enable_if_t<
                           !std::is_same_v<std::decay_t<C>, span> &&
                           std::is_convertible_v<decltype(std::data(std::declval<C &>())), T *>>>
    constexpr span(C &&container) noexcept
        : data_(std::data(container)), size_(std::size(container))
    {
    }

    /** The first element (nullptr when empty). */
    constexpr T *data() const noexcept { return data_; }
    /** The number of elements. */
    constexpr std::size_t size() const noexcept { return size_; }
    /** True when there is no element. */
    constexpr bool empty() const noexcept { return size_ == 0; }
    /** Element i (unchecked, i < size()). */
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
    /** Iterators over the elements. */
    constexpr T *begin() const noexcept { return data_; }
    /** The end iterator. */
    constexpr T *end() const noexcept { return data_ + size_; }
    /** The elements [offset, offset + count), clamped to the view. */
    constexpr span subspan(std::size_t offset, std::size_t count) const noexcept
    {
        if (offset > size_) offset = size_;
        if (count > size_ - offset) count = size_ - offset;
        return span(data_ + offset, count);
    }
    /** A copy of the elements. */
    std::vector<value_type> to_vector() const { return std::vector<value_type>(begin(), end()); }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

/** The library's version as "MAJOR.MINOR.PATCH" (the library the program runs against). */
inline std::string version() { return satfeat_version_string(); }

/** True when the library was built with the CUDA backend. */
inline bool has_cuda_build() noexcept { return satfeat_has_cuda_build() != 0; }

/** The number of usable CUDA devices (0 without any, or without the CUDA backend). */
inline int cuda_device_count() noexcept { return satfeat_cuda_device_count(); }

/** A context: the backend (CPU or a CUDA device), thread count, memory limit, stream and the
 *  message of the last failure (satfeat_ctx). Every other object of a context must be
 *  destroyed before it. */
class context {
public:
    /** A context on `backend` (AUTO: CUDA when a device is usable, else the CPU) and CUDA device
     *  `device` (negative: device 0). Throws SATFEAT_ERR_NO_DEVICE / _UNSUPPORTED for CUDA
     *  without a device or a CUDA build. */
    explicit context(satfeat_backend backend = SATFEAT_BACKEND_AUTO, int device = -1)
    {
        satfeat_ctx *raw = nullptr;
        detail::check(satfeat_ctx_new(&raw, backend, device), nullptr, "context");
        ctx_.reset(raw);
    }

    /** The resolved backend: SATFEAT_BACKEND_CPU or SATFEAT_BACKEND_CUDA. */
    satfeat_backend backend() const noexcept { return satfeat_ctx_backend(ctx_.get()); }
    /** The CUDA device ordinal, -1 on the CPU. */
    int device() const noexcept { return satfeat_ctx_device(ctx_.get()); }
    /** The CPU threads the context uses (>= 1). */
    int threads() const noexcept { return satfeat_ctx_threads(ctx_.get()); }
    /** Sets the CPU threads (0: the OpenMP default, 1: serial). */
    void set_threads(int threads)
    {
        detail::check(satfeat_ctx_set_threads(ctx_.get(), threads), ctx_.get(), "set_threads");
    }
    /** The memory limit in bytes (satfeat_ctx_set_memory_limit). */
    std::size_t memory_limit() const noexcept { return satfeat_ctx_memory_limit(ctx_.get()); }
    /** Sets the memory limit in bytes (0: the default). */
    void set_memory_limit(std::size_t bytes)
    {
        detail::check(satfeat_ctx_set_memory_limit(ctx_.get(), bytes), ctx_.get(),
                      "set_memory_limit");
    }
    /** Sets the CUDA stream (a cudaStream_t) of host-memory calls; CUDA contexts only. */
    void set_stream(void *stream)
    {
        detail::check(satfeat_ctx_set_stream(ctx_.get(), stream), ctx_.get(), "set_stream");
    }
    /** The message of the last failed call ("" when none). */
    std::string last_error() const { return satfeat_ctx_last_error(ctx_.get()); }
    /** The C handle (owned by this object). */
    satfeat_ctx *get() const noexcept { return ctx_.get(); }

private:
    detail::handle<satfeat_ctx, satfeat_ctx_delete> ctx_;
};

} // namespace satfeat

#endif /* SATFEAT_HPP_CORE */
