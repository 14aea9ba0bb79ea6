// The compiled part of Boost.Asio (with its SSL streams) and Boost.Beast, once for the program.
// Every file is built with BOOST_ASIO_SEPARATE_COMPILATION and BOOST_BEAST_SEPARATE_COMPILATION
// (cmake/build_speed.cmake), so the files that include <boost/asio.hpp> or <boost/beast/...> see
// declarations only; the definitions are here. Nothing of awaywork's own is in this file.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
