# TF_REQUIRE_PKG(VARIABLE-PREFIX, PKG-CONFIG-MODULE, DEBIAN-PACKAGE)
# pkg-config check that stops configure with the Debian package to install.
AC_DEFUN([TF_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([pkg-config module '$2' not found: install the Debian package $3 (apt-get install $3)])])
])
