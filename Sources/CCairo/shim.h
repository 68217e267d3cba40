#ifndef MARBLES_CCAIRO_SHIM_H
#define MARBLES_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
#endif
