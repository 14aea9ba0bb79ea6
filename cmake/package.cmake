# The Debian package (scripts/package-deb builds it from the Release build; docs/install.md says
# what goes where). Installs only what a user runs: the binary, its static helpers, man pages,
# completions, the systemd user unit for watch, the manuals and examples. Nothing here is built by
# `all`: the package's files come from the targets awaywork and aw_package_files, which
# scripts/package-deb builds before cpack (CMAKE_SKIP_INSTALL_ALL_DEPENDENCY: `install` must not
# build every test in the Release tree).
include(GNUInstallDirs)
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(aw_pkg ${PROJECT_BINARY_DIR}/package-files)
set(aw_doc ${CMAKE_INSTALL_DATADIR}/doc/awaywork)

install(TARGETS awaywork RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# static_program() looks in ../libexec/awaywork/ from the binary.
install(TARGETS aw_probe_static aw_bridge_static aw_mcp_relay_static RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/awaywork)

# Man pages: hand-written roff in docs/man/ (tests/package/docs_test.sh holds them to the real
# flags), compressed as Debian policy wants (gzip -9n: no name or time in the header).
file(GLOB aw_man_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.1)
set(aw_package_outputs)
foreach(page ${aw_man_pages})
  get_filename_component(name ${page} NAME)
  add_custom_command(OUTPUT ${aw_pkg}/man/${name}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${aw_pkg}/man
    COMMAND gzip -9n -c ${page} > ${aw_pkg}/man/${name}.gz
    DEPENDS ${page} VERBATIM)
  list(APPEND aw_package_outputs ${aw_pkg}/man/${name}.gz)
  install(FILES ${aw_pkg}/man/${name}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()

# changelog.Debian.gz from contrib/debian/changelog, whose newest entry must be this version.
set(AW_DEB_VERSION ${PROJECT_VERSION}-1)
file(STRINGS ${PROJECT_SOURCE_DIR}/contrib/debian/changelog aw_changelog_top LIMIT_COUNT 1)
if(NOT aw_changelog_top MATCHES "^awaywork \\(${AW_DEB_VERSION}\\) ")
  message(FATAL_ERROR "contrib/debian/changelog: the newest entry is '${aw_changelog_top}', not "
                      "version ${AW_DEB_VERSION}: add an entry for it at the top")
endif()
add_custom_command(OUTPUT ${aw_pkg}/changelog.Debian.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${aw_pkg}
  COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/contrib/debian/changelog > ${aw_pkg}/changelog.Debian.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/contrib/debian/changelog VERBATIM)
list(APPEND aw_package_outputs ${aw_pkg}/changelog.Debian.gz)
add_custom_target(aw_package_files DEPENDS ${aw_package_outputs})
install(FILES ${aw_pkg}/changelog.Debian.gz ${PROJECT_SOURCE_DIR}/contrib/debian/copyright
        DESTINATION ${aw_doc})

# The user unit as a source build uses it, pointed at the packaged binary and manual (the
# package installs under /usr, whatever CMAKE_INSTALL_PREFIX a plain `cmake --install` uses).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
file(READ ${PROJECT_SOURCE_DIR}/contrib/systemd/awaywork-watch.service aw_unit_text)
string(REPLACE "%h/.local/bin/awaywork" "${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/awaywork" aw_unit_text "${aw_unit_text}")
string(REPLACE "%h/.local/share/doc/awaywork" "${CPACK_PACKAGING_INSTALL_PREFIX}/${aw_doc}" aw_unit_text "${aw_unit_text}")
file(WRITE ${aw_pkg}/awaywork-watch.service "${aw_unit_text}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/contrib/systemd/awaywork-watch.service)
install(FILES ${aw_pkg}/awaywork-watch.service DESTINATION lib/systemd/user)

install(FILES ${PROJECT_SOURCE_DIR}/contrib/completions/awaywork.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME awaywork)
install(FILES ${PROJECT_SOURCE_DIR}/contrib/completions/_awaywork
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${PROJECT_SOURCE_DIR}/contrib/completions/awaywork.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

file(GLOB aw_manuals ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${aw_manuals} ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${aw_doc})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${aw_doc}/examples
        USE_SOURCE_PERMISSIONS)

# Each override says why (lintian reads them from here).
install(FILES ${PROJECT_SOURCE_DIR}/contrib/debian/lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME awaywork)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME awaywork)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT "awaywork maintainers <maintainers@users.noreply.a-seed-cec0ba61.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "run AI coding agents unattended, isolated")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "awaywork runs AI coding agents on repository tasks without a person watching,\n"
    "isolated from the owner's machine and credentials (an OS sandbox, a worker\n"
    "user or containers), and turns their work into checked data: a patch and\n"
    "requests that an output check bounds before a separate, credentialed step\n"
    "publishes them as a branch and a draft pull request. It runs one unit now,\n"
    "watches a forge for admitted issues, and serves a local API and dashboard.")
string(REPLACE ";" "" CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_DEBIAN_PACKAGE_DESCRIPTION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The shared libraries the binary links (dpkg-shlibdeps), plus what it runs: git for every unit,
# the CA certificates its TLS clients verify against. sudo only serves isolation user, an engine
# only isolation container, a Secret Service only the keyring backend: recommended or suggested.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "git, ca-certificates")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "sudo")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "docker.io | podman, gnome-keyring")
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
include(CPack)
